//! Prometheus text metrics: requests by route and status, a latency histogram by route,
//! (read at scrape time) the job queue's depth by state and by kind, and what this process's
//! job slots saw: claim latency, job duration by kind and outcome, lease expiries swept.
//! Small enough to hand-roll; a metrics crate would add a registry and macros for a handful
//! of series.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::Mutex;
use std::time::Duration;

/// Upper bounds of the latency buckets, in seconds.
const BUCKETS: &[f64] = &[
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0,
];

/// Upper bounds of the job duration buckets, in seconds (a no-op job to a long branded render).
const JOB_BUCKETS: &[f64] = &[
    0.1, 0.5, 1.0, 2.5, 5.0, 10.0, 20.0, 30.0, 60.0, 120.0, 300.0, 600.0,
];

#[derive(Debug, Default, Clone)]
struct Histogram {
    counts: [u64; 12],
    sum: f64,
    count: u64,
}

impl Histogram {
    fn observe(&mut self, bounds: &[f64], secs: f64) {
        for (i, bound) in bounds.iter().enumerate() {
            if secs <= *bound {
                self.counts[i] += 1;
            }
        }
        self.sum += secs;
        self.count += 1;
    }

    /// The `_bucket`, `_sum` and `_count` lines of series `name` with `labels` (`a="b",`
    /// with its trailing comma, or empty).
    fn write(&self, out: &mut String, name: &str, labels: &str, bounds: &[f64]) {
        for (i, bound) in bounds.iter().enumerate() {
            let _ = writeln!(
                out,
                "{name}_bucket{{{labels}le=\"{bound}\"}} {}",
                self.counts[i]
            );
        }
        let _ = writeln!(out, "{name}_bucket{{{labels}le=\"+Inf\"}} {}", self.count);
        let labels = labels.trim_end_matches(',');
        let _ = writeln!(out, "{name}_sum{{{labels}}} {}", self.sum);
        let _ = writeln!(out, "{name}_count{{{labels}}} {}", self.count);
    }
}

#[derive(Debug, Default)]
struct Inner {
    requests: BTreeMap<(String, u16), u64>,
    latency: BTreeMap<String, Histogram>,
    /// Webhook delivery attempts made by this process, by outcome.
    webhooks: BTreeMap<&'static str, u64>,
    /// Time of this process's claims, by whether they found a job.
    claims: BTreeMap<&'static str, Histogram>,
    /// Time of this process's jobs, by kind and outcome.
    jobs: BTreeMap<(String, &'static str), Histogram>,
    /// Jobs whose lease ran out, put back (or failed) by this process's sweep.
    lease_expiries: u64,
}

/// The server's counters.
#[derive(Debug, Default)]
pub struct Metrics {
    inner: Mutex<Inner>,
}

impl Metrics {
    /// Records one finished request. `route` is the matched route template (never the raw
    /// path, so ids do not explode the label set).
    pub fn record(&self, route: &str, status: u16, elapsed: Duration) {
        let secs = elapsed.as_secs_f64();
        if let Ok(mut inner) = self.inner.lock() {
            *inner
                .requests
                .entry((route.to_owned(), status))
                .or_default() += 1;
            inner
                .latency
                .entry(route.to_owned())
                .or_default()
                .observe(BUCKETS, secs);
        }
    }

    /// Records one claim of a job slot: how long the queue took to answer, and whether it
    /// handed out a job (`found`) or had nothing runnable.
    pub fn record_claim(&self, elapsed: Duration, found: bool) {
        let result = if found { "job" } else { "empty" };
        if let Ok(mut inner) = self.inner.lock() {
            inner
                .claims
                .entry(result)
                .or_default()
                .observe(BUCKETS, elapsed.as_secs_f64());
        }
    }

    /// Records one job this process ran, from claim to settling: its kind (`JobKind::as_str`)
    /// and how it ended (`done`, `failed` (retried or for good), `lease_lost`, `handed_back`).
    pub fn record_job(&self, kind: &str, outcome: &'static str, elapsed: Duration) {
        if let Ok(mut inner) = self.inner.lock() {
            inner
                .jobs
                .entry((kind.to_owned(), outcome))
                .or_default()
                .observe(JOB_BUCKETS, elapsed.as_secs_f64());
        }
    }

    /// Counts jobs whose lease had run out, found by this process's sweep.
    pub fn record_lease_expiries(&self, jobs: u64) {
        if let Ok(mut inner) = self.inner.lock() {
            inner.lease_expiries += jobs;
        }
    }

    /// Counts one webhook delivery attempt by its outcome (`webhook::OUTCOMES`).
    pub fn record_webhook(&self, outcome: &'static str) {
        if let Ok(mut inner) = self.inner.lock() {
            *inner.webhooks.entry(outcome).or_default() += 1;
        }
    }

    /// The exposition text, with `queue` (state, depth) appended.
    pub fn render(&self, queue: &[(&str, i64)]) -> String {
        self.render_with_kinds(queue, &[])
    }

    /// [`Metrics::render`] with the depth of the queue by job kind too: `by_kind` holds
    /// (kind, state, jobs) for the states that are still to do (`queued`, `running`).
    pub fn render_with_kinds(
        &self,
        queue: &[(&str, i64)],
        by_kind: &[(String, String, i64)],
    ) -> String {
        let mut out = String::new();
        let (requests, latency, webhooks, claims, jobs, lease_expiries) = match self.inner.lock() {
            Ok(inner) => (
                inner.requests.clone(),
                inner.latency.clone(),
                inner.webhooks.clone(),
                inner.claims.clone(),
                inner.jobs.clone(),
                inner.lease_expiries,
            ),
            Err(_) => Default::default(),
        };
        out.push_str("# HELP stillreel_http_requests_total HTTP requests by route and status.\n");
        out.push_str("# TYPE stillreel_http_requests_total counter\n");
        for ((route, status), n) in &requests {
            let _ = writeln!(
                out,
                "stillreel_http_requests_total{{route=\"{}\",status=\"{status}\"}} {n}",
                escape(route)
            );
        }
        out.push_str("# HELP stillreel_http_request_duration_seconds Time to answer, by route.\n");
        out.push_str("# TYPE stillreel_http_request_duration_seconds histogram\n");
        for (route, h) in &latency {
            let labels = format!("route=\"{}\",", escape(route));
            h.write(
                &mut out,
                "stillreel_http_request_duration_seconds",
                &labels,
                BUCKETS,
            );
        }
        out.push_str("# HELP stillreel_jobs Render jobs by state.\n");
        out.push_str("# TYPE stillreel_jobs gauge\n");
        for (state, n) in queue {
            let _ = writeln!(out, "stillreel_jobs{{state=\"{state}\"}} {n}");
        }
        out.push_str(
            "# HELP stillreel_jobs_by_kind Jobs still to do (queued, running) by kind and state.\n",
        );
        out.push_str("# TYPE stillreel_jobs_by_kind gauge\n");
        for (kind, state, n) in by_kind {
            let _ = writeln!(
                out,
                "stillreel_jobs_by_kind{{kind=\"{}\",state=\"{}\"}} {n}",
                escape(kind),
                escape(state)
            );
        }
        out.push_str(
            "# HELP stillreel_job_claim_duration_seconds Time of this process's queue claims, by whether they found a job.\n",
        );
        out.push_str("# TYPE stillreel_job_claim_duration_seconds histogram\n");
        for (result, h) in &claims {
            let labels = format!("result=\"{result}\",");
            h.write(
                &mut out,
                "stillreel_job_claim_duration_seconds",
                &labels,
                BUCKETS,
            );
        }
        out.push_str(
            "# HELP stillreel_job_duration_seconds Jobs run by this process, claim to settling, by kind and outcome.\n",
        );
        out.push_str("# TYPE stillreel_job_duration_seconds histogram\n");
        for ((kind, outcome), h) in &jobs {
            let labels = format!("kind=\"{}\",outcome=\"{outcome}\",", escape(kind));
            h.write(
                &mut out,
                "stillreel_job_duration_seconds",
                &labels,
                JOB_BUCKETS,
            );
        }
        out.push_str(
            "# HELP stillreel_job_lease_expiries_total Jobs whose lease ran out (worker dead or stalled), found by this process's sweep.\n",
        );
        out.push_str("# TYPE stillreel_job_lease_expiries_total counter\n");
        let _ = writeln!(out, "stillreel_job_lease_expiries_total {lease_expiries}");
        out.push_str(
            "# HELP stillreel_webhook_deliveries_total Webhook delivery attempts by outcome.\n",
        );
        out.push_str("# TYPE stillreel_webhook_deliveries_total counter\n");
        for outcome in crate::webhook::OUTCOMES {
            let n = webhooks.get(outcome).copied().unwrap_or(0);
            let _ = writeln!(
                out,
                "stillreel_webhook_deliveries_total{{outcome=\"{outcome}\"}} {n}"
            );
        }
        out
    }
}

fn escape(label: &str) -> String {
    label
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_buckets_are_cumulative() {
        let m = Metrics::default();
        m.record("/a", 200, Duration::from_millis(3));
        m.record("/a", 200, Duration::from_millis(30));
        m.record("/a", 404, Duration::from_secs(10));
        let text = m.render(&[("queued", 2)]);
        assert!(text.contains("stillreel_http_requests_total{route=\"/a\",status=\"200\"} 2"));
        assert!(text.contains("stillreel_http_requests_total{route=\"/a\",status=\"404\"} 1"));
        assert!(text.contains(
            "stillreel_http_request_duration_seconds_bucket{route=\"/a\",le=\"0.005\"} 1"
        ));
        assert!(text.contains(
            "stillreel_http_request_duration_seconds_bucket{route=\"/a\",le=\"0.05\"} 2"
        ));
        assert!(text.contains(
            "stillreel_http_request_duration_seconds_bucket{route=\"/a\",le=\"+Inf\"} 3"
        ));
        assert!(text.contains("stillreel_jobs{state=\"queued\"} 2"));
        assert!(text.contains("stillreel_webhook_deliveries_total{outcome=\"delivered\"} 0"));
        m.record_webhook("retry");
        let text = m.render(&[]);
        assert!(text.contains("stillreel_webhook_deliveries_total{outcome=\"retry\"} 1"));
    }

    #[test]
    fn job_series_claims_durations_expiries_and_depth_by_kind() {
        let m = Metrics::default();
        let text = m.render(&[]);
        assert!(text.contains("stillreel_job_lease_expiries_total 0"));
        assert!(text.contains("# TYPE stillreel_job_claim_duration_seconds histogram"));
        m.record_claim(Duration::from_millis(2), true);
        m.record_claim(Duration::from_millis(20), false);
        m.record_claim(Duration::from_millis(4), false);
        m.record_job("render", "done", Duration::from_secs(25));
        m.record_job("render", "lease_lost", Duration::from_secs(3));
        m.record_lease_expiries(2);
        m.record_lease_expiries(1);
        let by_kind = [
            ("clip".to_owned(), "queued".to_owned(), 5),
            ("render".to_owned(), "running".to_owned(), 1),
        ];
        let text = m.render_with_kinds(&[("queued", 5)], &by_kind);
        for line in [
            "stillreel_job_claim_duration_seconds_bucket{result=\"job\",le=\"0.0025\"} 1",
            "stillreel_job_claim_duration_seconds_bucket{result=\"empty\",le=\"0.005\"} 1",
            "stillreel_job_claim_duration_seconds_bucket{result=\"empty\",le=\"0.025\"} 2",
            "stillreel_job_claim_duration_seconds_count{result=\"empty\"} 2",
            "stillreel_job_duration_seconds_bucket{kind=\"render\",outcome=\"done\",le=\"20\"} 0",
            "stillreel_job_duration_seconds_bucket{kind=\"render\",outcome=\"done\",le=\"30\"} 1",
            "stillreel_job_duration_seconds_bucket{kind=\"render\",outcome=\"lease_lost\",le=\"+Inf\"} 1",
            "stillreel_job_duration_seconds_sum{kind=\"render\",outcome=\"done\"} 25",
            "stillreel_job_lease_expiries_total 3",
            "stillreel_jobs_by_kind{kind=\"clip\",state=\"queued\"} 5",
            "stillreel_jobs_by_kind{kind=\"render\",state=\"running\"} 1",
            "stillreel_jobs{state=\"queued\"} 5",
        ] {
            assert!(text.contains(line), "missing {line}:\n{text}");
        }
        // The route histogram kept its shape through the shared writer.
        m.record("/a", 200, Duration::from_millis(3));
        let text = m.render(&[]);
        assert!(text.contains(
            "stillreel_http_request_duration_seconds_bucket{route=\"/a\",le=\"0.005\"} 1"
        ));
        assert!(text.contains("stillreel_http_request_duration_seconds_sum{route=\"/a\"} 0.003"));
        assert!(text.contains("stillreel_http_request_duration_seconds_count{route=\"/a\"} 1"));
    }
}
