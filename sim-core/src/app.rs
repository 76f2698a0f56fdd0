//! The run loop: an [`Application`] reacting to the engine's notifications.
//!
//! An application family (master/worker, job stream, work stealing, skeletons) implements
//! [`Application`]: it starts activities in [`Application::start`] and reacts to each completion
//! or failure. Policies live inside the application and return decisions as data; only the
//! application calls the engine.

use crate::engine::{Engine, Notification};
use crate::time::SimTime;

/// Agents that drive a simulation by starting activities and reacting to their outcomes.
pub trait Application {
    /// Called once, at time 0, before any event.
    fn start(&mut self, engine: &mut Engine);
    /// Called for each completion or failure, at the time it happens.
    fn on_notification(&mut self, engine: &mut Engine, note: Notification);
}

/// An engine and the application it runs.
pub struct Simulation<A> {
    /// The engine (clock, resources, activities).
    pub engine: Engine,
    /// The application.
    pub app: A,
    started: bool,
}

impl<A: Application> Simulation<A> {
    /// Couples an application to an engine.
    pub fn new(engine: Engine, app: A) -> Self {
        Simulation {
            engine,
            app,
            started: false,
        }
    }

    fn ensure_started(&mut self) {
        if !self.started {
            self.started = true;
            self.app.start(&mut self.engine);
        }
    }

    /// Runs until nothing is left to happen. Returns the final time.
    pub fn run(&mut self) -> SimTime {
        self.run_until(SimTime::INFINITY)
    }

    /// Runs every event up to and including `horizon`; the clock then reads `horizon` (if
    /// finite) or the time of the last event.
    pub fn run_until(&mut self, horizon: SimTime) -> SimTime {
        self.ensure_started();
        while let Some(note) = self.engine.next_notification_until(horizon) {
            self.app.on_notification(&mut self.engine, note);
        }
        self.engine.now()
    }

    /// Events processed so far.
    pub fn steps(&self) -> u64 {
        self.engine.steps()
    }

    /// The engine's work counters so far.
    pub fn stats(&self) -> crate::EngineStats {
        self.engine.stats()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::platform::{Host, Platform};

    /// Sleeps 1, 2, ... 10 s in turn and records each wake-up date.
    struct Ticker {
        woken: Vec<f64>,
    }

    impl Application for Ticker {
        fn start(&mut self, engine: &mut Engine) {
            engine.sleep(1.0, 1);
        }
        fn on_notification(&mut self, engine: &mut Engine, note: Notification) {
            if let Notification::Completed { tag, .. } = note {
                self.woken.push(engine.now().secs());
                if tag < 10 {
                    engine.sleep((tag + 1) as f64, tag + 1);
                }
            }
        }
    }

    #[test]
    fn run_until_stops_at_the_horizon_and_run_finishes() {
        let mut platform = Platform::new();
        platform.add_host(Host::new("h", 1e9));
        let engine = Engine::new(Arc::new(platform)).unwrap();
        let mut sim = Simulation::new(engine, Ticker { woken: Vec::new() });
        // Wake-ups at 1, 3, 6, 10, 15, ...: up to 7 s only 1, 3 and 6.
        assert_eq!(sim.run_until(SimTime::from_secs(7.0)).secs(), 7.0);
        assert_eq!(sim.app.woken, vec![1.0, 3.0, 6.0]);
        assert_eq!(sim.steps(), 3);
        // The sum 1 + 2 + ... + 10 = 55 is the last wake-up.
        assert_eq!(sim.run().secs(), 55.0);
        assert_eq!(sim.app.woken.len(), 10);
        assert_eq!(sim.steps(), 10);
    }
}
