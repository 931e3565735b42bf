//! Helpers of the integration tests: a deterministic normal generator and builders.
#![allow(dead_code)]

use pitboss_ladder::{Entrant, Record, Settings, VersionId};

/// SplitMix64 with Box–Muller normals: deterministic, no dependency.
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    pub fn normal(&mut self) -> f64 {
        let u = self.uniform().max(1e-300);
        let v = self.uniform();
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }

    /// Uniform integer in [0, n).
    pub fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }
}

pub fn reference(id: VersionId) -> Entrant {
    Entrant {
        id,
        reference: true,
        active: true,
        predecessor: None,
    }
}

pub fn upload(id: VersionId) -> Entrant {
    Entrant {
        id,
        reference: false,
        active: true,
        predecessor: None,
    }
}

pub fn rec(preset: &str, a: VersionId, b: VersionId, mean: f64, se: f64) -> Record {
    Record {
        preset: preset.to_string(),
        a,
        b,
        units: 1000,
        mean,
        se,
    }
}

pub fn settings(presets: &[&str]) -> Settings {
    Settings {
        presets: presets.iter().map(|s| s.to_string()).collect(),
        ..Settings::default()
    }
}

/// A simulated match: `a − b` true difference plus noise of standard deviation `se`.
pub fn play(rng: &mut Rng, preset: &str, a: VersionId, b: VersionId, diff: f64, se: f64) -> Record {
    rec(preset, a, b, diff + se * rng.normal(), se)
}
