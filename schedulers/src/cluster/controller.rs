//! WAL-FC's feedback controller (§4.3). When a job completes, its slowdown enters a history of
//! the last `history` slowdowns (paper: 50) and the mean `S̄_u` is compared with the previous
//! mean `S̄_{u−1}`:
//!
//! - eq. 4.9: `ΔW_IO = G_w (1 − S̄_u / S̄_{u−1}) · sign(ΔW_IO of the previous action)`;
//! - eq. 4.13: `Δbufsize = G_b (S̄_{u−1} − S̄_u) · sign(Δbufsize of the previous action)`.
//!
//! So an improvement (`S̄_u < S̄_{u−1}`) continues in the previous direction and a
//! deterioration reverses it, for both knobs, as the paper's text spells out.
//!
//! Readings taken where the paper is silent (all parameters): the first completion has no
//! previous mean and makes no move; the direction of the "previous action" before any move, and
//! after a zero move, is the last nonzero direction, starting upward (`+1`); `G_b` converts a
//! slowdown difference into bytes (default 0.5 MB per unit of slowdown: the paper's
//! "G = 0.5" with the buffer counted in MB). The application clamps `W_IO` to [0, 1] and the
//! buffer to its configured bounds.

use std::collections::VecDeque;

use super::balancer::{ControlAction, FeedbackController};

/// The controller of eqs. 4.9–4.13.
#[derive(Clone, Debug)]
pub struct SlowdownController {
    /// `G_w` (paper: 0.5).
    pub gain_w: f64,
    /// `G_b`, bytes per unit of slowdown (default 0.5e6).
    pub gain_buffer_bytes: f64,
    /// History size (paper: 50).
    pub history: usize,
    recent: VecDeque<f64>,
    previous_mean: Option<f64>,
    sign_w: f64,
    sign_b: f64,
}

impl SlowdownController {
    /// A controller with gains `G_w`, `G_b` and a history of `history` slowdowns.
    pub fn new(gain_w: f64, gain_buffer_bytes: f64, history: usize) -> SlowdownController {
        SlowdownController {
            gain_w,
            gain_buffer_bytes,
            history: history.max(1),
            recent: VecDeque::new(),
            previous_mean: None,
            sign_w: 1.0,
            sign_b: 1.0,
        }
    }
}

impl FeedbackController for SlowdownController {
    fn on_completion(&mut self, slowdown: f64) -> ControlAction {
        self.recent.push_back(slowdown);
        if self.recent.len() > self.history {
            self.recent.pop_front();
        }
        // Summed afresh (the window is small): no drift from adding and removing.
        let mean = self.recent.iter().sum::<f64>() / self.recent.len() as f64;
        let Some(previous) = self.previous_mean.replace(mean) else {
            return ControlAction::default();
        };
        let delta_w = if previous > 0.0 {
            self.gain_w * (1.0 - mean / previous) * self.sign_w
        } else {
            0.0
        };
        let delta_b = self.gain_buffer_bytes * (previous - mean) * self.sign_b;
        if delta_w != 0.0 {
            self.sign_w = delta_w.signum();
        }
        if delta_b != 0.0 {
            self.sign_b = delta_b.signum();
        }
        ControlAction {
            delta_w_io: delta_w,
            delta_buffer_bytes: delta_b,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A controller whose history is 1, so each mean is the last slowdown.
    fn controller() -> SlowdownController {
        SlowdownController::new(0.5, 1e6, 1)
    }

    #[test]
    fn the_four_sign_cases_of_the_papers_text() {
        let mut c = controller();
        assert_eq!(c.on_completion(4.0), ControlAction::default());
        // Previous action taken as an increase (+1). Improved (4 -> 2): keep increasing.
        // ΔW = 0.5 (1 − 2/4) = 0.25; Δbuf = 1e6 (4 − 2) = 2e6.
        let a = c.on_completion(2.0);
        assert_eq!((a.delta_w_io, a.delta_buffer_bytes), (0.25, 2e6));
        // Increased and worsened (2 -> 3): decrease. ΔW = 0.5 (1 − 3/2) = −0.25; Δbuf = −1e6.
        let a = c.on_completion(3.0);
        assert_eq!((a.delta_w_io, a.delta_buffer_bytes), (-0.25, -1e6));
        // Decreased and improved (3 -> 1.5): keep decreasing. ΔW = −0.5 (1 − 0.5) = −0.25.
        let a = c.on_completion(1.5);
        assert_eq!((a.delta_w_io, a.delta_buffer_bytes), (-0.25, -1.5e6));
        // Decreased and worsened (1.5 -> 3): increase. ΔW = −0.5 (1 − 2) = 0.5; Δbuf = 1.5e6.
        let a = c.on_completion(3.0);
        assert_eq!((a.delta_w_io, a.delta_buffer_bytes), (0.5, 1.5e6));
    }

    #[test]
    fn the_mean_is_over_the_last_history_slowdowns() {
        let mut c = SlowdownController::new(1.0, 0.0, 2);
        c.on_completion(1.0);
        c.on_completion(3.0); // mean 2, previous 1: ΔW = 1 − 2 = −1
        let a = c.on_completion(5.0); // window (3, 5): mean 4; ΔW = −1 · (1 − 4/2) = 1
        assert_eq!(a.delta_w_io, 1.0);
    }
}
