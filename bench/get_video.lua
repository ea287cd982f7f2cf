-- wrk script: GET /api/v1/get_video (path and key set by bench/http.sh), counting non-200s.
wrk.headers["Authorization"] = os.getenv("STILLREEL_BENCH_KEY")
local bad = 0
function response(status, headers, body)
  if status ~= 200 then bad = bad + 1 end
end
function done(summary, latency, requests)
  io.write(string.format("non200 %d\n", bad))
end
