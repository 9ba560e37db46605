//! The chance of a rule with a `probability`: a small deterministic generator (SplitMix64)
//! seeded per rule, so the same seed gives the same hits in the same order of requests.

#[derive(Debug, Clone)]
pub struct Chance {
    probability: f64,
    seed: u64,
    state: u64,
}

impl Chance {
    pub fn new(probability: f64, seed: u64) -> Chance {
        Chance {
            probability,
            seed,
            state: seed,
        }
    }

    pub fn probability(&self) -> f64 {
        self.probability
    }

    pub fn seed(&self) -> u64 {
        self.seed
    }

    fn next(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Whether the next matching request is hit.
    pub fn draw(&mut self) -> bool {
        // 53 random bits make a uniform number in [0, 1).
        let unit = (self.next() >> 11) as f64 / (1u64 << 53) as f64;
        unit < self.probability
    }
}

#[cfg(test)]
mod tests {
    use super::Chance;

    fn draws(probability: f64, seed: u64) -> Vec<bool> {
        let mut chance = Chance::new(probability, seed);
        (0..1000).map(|_| chance.draw()).collect()
    }

    #[test]
    fn the_same_seed_repeats_the_same_draws() {
        assert_eq!(draws(0.3, 42), draws(0.3, 42));
        assert_ne!(draws(0.3, 42), draws(0.3, 43));
    }

    #[test]
    fn the_share_of_hits_follows_the_probability() {
        let hits = draws(0.3, 7).into_iter().filter(|h| *h).count();
        assert!((250..350).contains(&hits), "{hits} of 1000");
        assert!(draws(0.0, 7).iter().all(|h| !h));
        assert!(draws(1.0, 7).iter().all(|h| *h));
    }
}
