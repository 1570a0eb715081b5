//! The simulation's one source of choices: a seeded SplitMix64, so a seed is the whole workload.

/// A seeded sequence of choices.
pub(super) struct Rng(u64);

impl Rng {
    /// The sequence of `seed`.
    pub(super) fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next number.
    pub(super) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `low..=high`.
    pub(super) fn range(&mut self, low: u64, high: u64) -> u64 {
        low + self.next() % (high - low + 1)
    }

    /// True `percent` times in a hundred.
    pub(super) fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }

    /// One of `items`, if there are any.
    pub(super) fn pick<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        match items.len() {
            0 => None,
            n => items.get((self.next() % n as u64) as usize),
        }
    }

    /// The index of one of `weights`, each chosen in proportion to its weight.
    pub(super) fn weighted(&mut self, weights: &[u64]) -> usize {
        let mut roll = self.next() % weights.iter().sum::<u64>();
        for (index, &weight) in weights.iter().enumerate() {
            if roll < weight {
                return index;
            }
            roll -= weight;
        }
        unreachable!("the roll is below the sum of the weights")
    }
}
