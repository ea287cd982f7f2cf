-- wrk script: POST /api/v1/create_video with five images. The key comes from the environment
-- (STILLREEL_BENCH_KEY), set by bench/http.sh.
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = os.getenv("STILLREEL_BENCH_KEY")
wrk.body = [[{"image_inputs": [
  {"image_url": "https://images.example.com/listing/1.jpg", "camera_motion": "push-in"},
  {"image_url": "https://images.example.com/listing/2.jpg", "camera_motion": "orbit-left"},
  {"image_url": "https://images.example.com/listing/3.jpg", "vfx": {"type": "day-to-twilight"}},
  {"image_url": "https://images.example.com/listing/4.jpg", "vfx": {"type": "word-drop", "config": {"text": "Just listed"}}},
  {"image_url": "https://images.example.com/listing/5.jpg"}
], "orientation": "landscape", "resolution": "1080p", "branding": {"speed_ramp": true}}]]

-- Count non-200 answers so a run full of errors cannot pass for a fast one.
local bad = 0
function response(status, headers, body)
  if status ~= 200 then bad = bad + 1 end
end
function done(summary, latency, requests)
  io.write(string.format("non200 %d\n", bad))
end
