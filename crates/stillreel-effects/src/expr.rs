//! Small ffmpeg expression builders shared by the effects.

/// Vertical offset (pixels, negative is above the resting place) of something dropped at
/// `start` seconds from `distance` pixels above, falling for `fall` seconds under constant
/// acceleration, then bouncing twice (6 % and 1.5 % of the distance, parabolic arcs) and resting.
/// Returns the expression of `t` and the time it comes to rest.
pub fn drop_bounce(start: f64, fall: f64, distance: f64) -> (String, f64) {
    let (b1, d1) = (distance * 0.06, fall * 0.5);
    let (b2, d2) = (distance * 0.015, fall * 0.25);
    let t1 = start + fall;
    let t2 = t1 + d1;
    let t3 = t2 + d2;
    let e = format!(
        "if(lt(t,{start:.4}),-{distance:.2},\
         if(lt(t,{t1:.4}),-{distance:.2}*(1-pow((t-{start:.4})/{fall:.4},2)),\
         if(lt(t,{t2:.4}),-{b1:.2}*4*((t-{t1:.4})/{d1:.4})*(1-(t-{t1:.4})/{d1:.4}),\
         if(lt(t,{t3:.4}),-{b2:.2}*4*((t-{t2:.4})/{d2:.4})*(1-(t-{t2:.4})/{d2:.4}),0))))"
    );
    (e, t3)
}

/// The same curve evaluated in Rust, for tests.
#[cfg(test)]
pub fn drop_bounce_at(t: f64, start: f64, fall: f64, distance: f64) -> f64 {
    let (b1, d1) = (distance * 0.06, fall * 0.5);
    let (b2, d2) = (distance * 0.015, fall * 0.25);
    let (t1, t2, t3) = (start + fall, start + fall + d1, start + fall + d1 + d2);
    if t < start {
        -distance
    } else if t < t1 {
        -distance * (1.0 - ((t - start) / fall).powi(2))
    } else if t < t2 {
        let u = (t - t1) / d1;
        -b1 * 4.0 * u * (1.0 - u)
    } else if t < t3 {
        let u = (t - t2) / d2;
        -b2 * 4.0 * u * (1.0 - u)
    } else {
        0.0
    }
}

/// Smoothstep of `t` between `a` and `b` seconds, as an expression (0 before, 1 after).
pub fn smooth(a: f64, b: f64) -> String {
    let u = format!("clip((t-{a:.4})/{:.4},0,1)", (b - a).max(1e-3));
    format!("({u})*({u})*(3-2*({u}))")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drop_starts_above_lands_and_rests() {
        let (_, rest) = drop_bounce(0.3, 0.6, 500.0);
        assert_eq!(drop_bounce_at(0.0, 0.3, 0.6, 500.0), -500.0);
        assert!(
            drop_bounce_at(0.9, 0.3, 0.6, 500.0).abs() < 1e-9,
            "lands at start+fall"
        );
        let peak = drop_bounce_at(0.9 + 0.15, 0.3, 0.6, 500.0);
        assert!((peak + 30.0).abs() < 1e-6, "first bounce is 6 %: {peak}");
        assert_eq!(drop_bounce_at(rest + 0.01, 0.3, 0.6, 500.0), 0.0);
        assert!((rest - (0.3 + 0.6 + 0.3 + 0.15)).abs() < 1e-9);
        // Never below the resting place.
        for i in 0..200 {
            assert!(drop_bounce_at(f64::from(i) * 0.01, 0.3, 0.6, 500.0) <= 1e-9);
        }
    }
}
