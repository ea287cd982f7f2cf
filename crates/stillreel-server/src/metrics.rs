//! Prometheus text metrics: requests by route and status, a latency histogram by route, and
//! (read at scrape time) the job queue's depth by state. Small enough to hand-roll; a
//! metrics crate would add a registry and macros for three series.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::Mutex;
use std::time::Duration;

/// Upper bounds of the latency buckets, in seconds.
const BUCKETS: &[f64] = &[
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0,
];

#[derive(Debug, Default, Clone)]
struct Histogram {
    counts: [u64; 12],
    sum: f64,
    count: u64,
}

#[derive(Debug, Default)]
struct Inner {
    requests: BTreeMap<(String, u16), u64>,
    latency: BTreeMap<String, Histogram>,
    /// Webhook delivery attempts made by this process, by outcome.
    webhooks: BTreeMap<&'static str, u64>,
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
            let h = inner.latency.entry(route.to_owned()).or_default();
            for (i, bound) in BUCKETS.iter().enumerate() {
                if secs <= *bound {
                    h.counts[i] += 1;
                }
            }
            h.sum += secs;
            h.count += 1;
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
        let mut out = String::new();
        let (requests, latency, webhooks) = match self.inner.lock() {
            Ok(inner) => (
                inner.requests.clone(),
                inner.latency.clone(),
                inner.webhooks.clone(),
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
            let route = escape(route);
            for (i, bound) in BUCKETS.iter().enumerate() {
                let _ = writeln!(
                    out,
                    "stillreel_http_request_duration_seconds_bucket{{route=\"{route}\",le=\"{bound}\"}} {}",
                    h.counts[i]
                );
            }
            let _ = writeln!(
                out,
                "stillreel_http_request_duration_seconds_bucket{{route=\"{route}\",le=\"+Inf\"}} {}",
                h.count
            );
            let _ = writeln!(
                out,
                "stillreel_http_request_duration_seconds_sum{{route=\"{route}\"}} {}",
                h.sum
            );
            let _ = writeln!(
                out,
                "stillreel_http_request_duration_seconds_count{{route=\"{route}\"}} {}",
                h.count
            );
        }
        out.push_str("# HELP stillreel_jobs Render jobs by state.\n");
        out.push_str("# TYPE stillreel_jobs gauge\n");
        for (state, n) in queue {
            let _ = writeln!(out, "stillreel_jobs{{state=\"{state}\"}} {n}");
        }
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
}
