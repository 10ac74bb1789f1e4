//! One level of a peg solitaire search: the boards with one number of pegs, one bit per
//! rank ([`SubsetRanker`]), shared by the threads that fill it.

use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use crate::rank::halves::Halves;
use crate::rank::subsets::SubsetRanker;

/// The boards with `pegs` pegs that a search found, one bit per rank.
#[derive(Debug)]
pub struct LevelSet {
    pegs: u32,
    words: Vec<AtomicU64>,
}

impl LevelSet {
    /// An empty level of boards with `pegs` pegs.
    #[must_use]
    pub fn empty(ranker: &SubsetRanker, pegs: u32) -> LevelSet {
        let count = ranker.count(pegs as usize).div_ceil(64) as usize;
        let mut words = Vec::with_capacity(count);
        crate::sys::advise_huge_pages(words.spare_capacity_mut());
        words.extend(std::iter::repeat_with(|| AtomicU64::new(0)).take(count));
        LevelSet { pegs, words }
    }

    /// The level's number of pegs.
    #[must_use]
    pub fn pegs(&self) -> u32 {
        self.pegs
    }

    /// Bytes of the bit set.
    #[must_use]
    pub fn bytes(&self) -> u64 {
        self.words.len() as u64 * 8
    }

    /// Marks the board of rank `index`.
    #[inline(always)]
    pub fn insert(&self, index: u64) {
        let word = &self.words[(index / 64) as usize];
        let bit = 1u64 << (index % 64);
        if word.load(Ordering::Relaxed) & bit == 0 {
            word.fetch_or(bit, Ordering::Relaxed);
        }
    }

    /// Whether the board of rank `index` is in the level.
    #[inline(always)]
    #[must_use]
    pub fn has(&self, index: u64) -> bool {
        self.words[(index / 64) as usize].load(Ordering::Relaxed) >> (index % 64) & 1 == 1
    }

    /// The number of boards in the level.
    #[must_use]
    pub fn count(&self) -> u64 {
        self.words
            .par_iter()
            .map(|w| w.load(Ordering::Relaxed).count_ones() as u64)
            .sum()
    }

    /// The words, lowest ranks first (bit `i % 64` of word `i / 64` is rank `i`).
    pub fn words(&self) -> impl Iterator<Item = u64> + '_ {
        self.words.iter().map(|w| w.load(Ordering::Relaxed))
    }

    /// The words, shared: bit `i % 64` of word `i / 64` is rank `i`.
    pub(crate) fn atomic_words(&self) -> &[AtomicU64] {
        &self.words
    }

    /// A level from its words (as [`LevelSet::words`] gives them).
    #[must_use]
    pub fn from_words(ranker: &SubsetRanker, pegs: u32, words: &[u64]) -> LevelSet {
        let level = LevelSet::empty(ranker, pegs);
        for (slot, &w) in level.words.iter().zip(words) {
            slot.store(w, Ordering::Relaxed);
        }
        level
    }

    /// Calls `visit` with every board of the level, in parallel: each task with its
    /// own state `init()` makes.
    pub fn for_each_board<S>(
        &self,
        halves: &Halves,
        init: impl Fn() -> S + Sync,
        visit: impl Fn(&mut S, u64) + Sync,
    ) {
        let base = halves.bases(self.pegs);
        let highs = halves.highs();
        let per_task = (highs / 256).max(1);
        (0..highs.div_ceil(per_task))
            .into_par_iter()
            .for_each(|task| {
                let mut state = init();
                let run = task * per_task..((task + 1) * per_task).min(highs);
                for (high, &first) in run.clone().zip(&base[run]) {
                    let Some(lows) = halves.lows(self.pegs, high as u64) else {
                        continue;
                    };
                    let end = first + lows.len() as u64;
                    let mut at = first;
                    while at < end {
                        let word_at = at / 64;
                        let mut bits =
                            self.words[word_at as usize].load(Ordering::Relaxed) >> (at % 64);
                        let span = (64 - at % 64).min(end - at);
                        if span < 64 {
                            bits &= (1u64 << span) - 1;
                        }
                        while bits != 0 {
                            let offset = at - first + bits.trailing_zeros() as u64;
                            bits &= bits - 1;
                            let board =
                                (high as u64) << halves.low_bits() | lows[offset as usize] as u64;
                            visit(&mut state, board);
                        }
                        at += span;
                    }
                }
            });
    }
}
