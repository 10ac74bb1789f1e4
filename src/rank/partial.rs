//! Ranking of partial permutations: where `k` distinct items stand among `n` places
//! (`n <= 32`), the placements of a pattern database's tiles.
//!
//! A placement is the list `places[0..k]` (item `i` on place `places[i]`, all
//! different). Its rank is its position in the lexicographic order of those lists:
//!
//! ```text
//! rank = sum over i of digit_i * P(n - 1 - i, k - 1 - i),
//! digit_i = places[i] - #{ j < i : places[j] < places[i] },
//! ```
//!
//! where `P(m, r) = m! / (m - r)!` counts the placements of the `r` items after `i` on
//! the `m` places left. So `digit_i` is item `i`'s place among those its predecessors
//! left free, and the ranks fill `0..P(n, k)` exactly. Counting the predecessors
//! below a place is one population count of a bit mask, so ranking costs `k` of them
//! and no table.
//!
//! ```
//! use antipode::rank::partial::Placements;
//!
//! let space = Placements::new(16, 8);
//! assert_eq!(space.count(), 518_918_400);
//! let places = [15, 0, 7, 3, 1, 2, 9, 4];
//! let rank = space.rank(&places);
//! let mut back = [0u8; 8];
//! space.unrank(rank, &mut back);
//! assert_eq!(back, places);
//! ```

use super::permutation::nth_set_bit;

/// The placements of `k` distinct items on `n` places, with their weights.
///
/// `Placements::new(n, k)` panics when `P(n, k)` does not fit a `u64`: check
/// [`Placements::checked_count`] first for sizes that come from input.
///
/// ```
/// use antipode::rank::partial::Placements;
///
/// // Three distinct tiles on nine cells: 9 * 8 * 7 placements.
/// let space = Placements::new(9, 3);
/// assert_eq!(space.count(), 504);
/// let rank = space.rank(&[4, 0, 8]);
/// let mut places = [0u8; 3];
/// space.unrank(rank, &mut places);
/// assert_eq!(places, [4, 0, 8]);
/// ```
#[derive(Debug, Clone)]
pub struct Placements {
    n: usize,
    k: usize,
    /// `weights[i] = P(n - 1 - i, k - 1 - i)`: what one unit of digit `i` is worth.
    weights: [u64; 32],
    /// `P(n, k)`.
    count: u64,
}

impl Placements {
    /// The placements of `k` items on `n` places; `k <= n <= 32`, and their count
    /// must fit a `u64` (always true for `k <= 13`).
    ///
    /// # Panics
    /// If `k > n`, `n > 32` or the count overflows a `u64`.
    #[must_use]
    pub fn new(n: usize, k: usize) -> Placements {
        assert!(k <= n && n <= 32, "{k} items on {n} places");
        let mut weights = [0u64; 32];
        let mut weight = 1u64;
        for i in (0..k).rev() {
            weights[i] = weight;
            weight = weight
                .checked_mul((n - i) as u64)
                .expect("the placement count fits a u64");
        }
        Placements {
            n,
            k,
            weights,
            count: weight,
        }
    }

    /// What one unit of item `i`'s digit adds to a rank: `P(n - 1 - i, k - 1 - i)`.
    #[inline(always)]
    #[must_use]
    pub fn weight(&self, i: usize) -> u64 {
        self.weights[i % 32]
    }

    /// The number of placements `n! / (n - k)!`, or `None` when it does not fit a
    /// `u64`.
    #[must_use]
    pub fn checked_count(n: usize, k: usize) -> Option<u64> {
        (n - k + 1..=n).try_fold(1u64, |acc, m| acc.checked_mul(m as u64))
    }

    /// The number of placements `n! / (n - k)!`.
    #[must_use]
    pub fn count(&self) -> u64 {
        self.count
    }

    /// The number of places.
    #[must_use]
    pub fn places(&self) -> usize {
        self.n
    }

    /// The number of items.
    #[must_use]
    pub fn items(&self) -> usize {
        self.k
    }

    /// The rank of a placement: `places[i]` is item `i`'s place.
    #[inline(always)]
    #[must_use]
    pub fn rank(&self, places: &[u8]) -> u64 {
        debug_assert_eq!(places.len(), self.k);
        let mut taken = 0u32;
        let mut rank = 0u64;
        for (i, &place) in places.iter().enumerate() {
            let below = taken & ((1u32 << place) - 1);
            let digit = place as u64 - below.count_ones() as u64;
            rank += digit * self.weights[i];
            taken |= 1 << place;
        }
        rank
    }

    /// The placement of rank `rank` into `places` (`places.len() == k`).
    pub fn unrank(&self, mut rank: u64, places: &mut [u8]) {
        debug_assert!(rank < self.count());
        let mut taken = 0u32;
        for (i, place) in places.iter_mut().enumerate() {
            let digit = (rank / self.weights[i]) as u32;
            rank %= self.weights[i];
            // The `digit`-th free place, counting from 0.
            let chosen = nth_set_bit(!taken, digit);
            *place = chosen as u8;
            taken |= 1 << chosen;
        }
    }
}

/// Largest step from one rank to the next that [`Cursor::seek`] takes by adding to the
/// digits instead of unranking.
const MAX_STEP: u64 = 1 << 12;

/// A placement that moves to higher ranks by adding to its digits (a carry now and
/// then), not by the `k` divisions of [`Placements::unrank`]: the walk over a level in
/// rank order.
///
/// ```
/// use antipode::rank::partial::{Cursor, Placements};
///
/// let space = Placements::new(5, 2);
/// let mut cursor = Cursor::new(&space);
/// // Walking the ranks in order gives what unranking each gives.
/// for rank in 0..space.count() {
///     let mut places = [0u8; 2];
///     space.unrank(rank, &mut places);
///     assert_eq!(cursor.seek(rank), places);
/// }
/// ```
#[derive(Debug, Clone)]
pub struct Cursor<'a> {
    space: &'a Placements,
    rank: u64,
    digits: [u32; 32],
    places: [u8; 32],
    /// `taken[i]`: the places of the items before `i`.
    taken: [u32; 33],
    valid: bool,
}

impl<'a> Cursor<'a> {
    /// A cursor not yet on any placement.
    #[must_use]
    pub fn new(space: &'a Placements) -> Cursor<'a> {
        Cursor {
            space,
            rank: 0,
            digits: [0; 32],
            places: [0; 32],
            taken: [0; 33],
            valid: false,
        }
    }

    /// Moves to the placement of rank `rank` and returns its places.
    #[inline(always)]
    pub fn seek(&mut self, rank: u64) -> &[u8] {
        let k = self.space.k;
        debug_assert!(rank < self.space.count);
        if k == 0 {
            return &[];
        }
        let first = if self.valid && rank >= self.rank && rank - self.rank <= MAX_STEP {
            // Add the difference to the last digit and carry.
            let mut i = k - 1;
            let mut sum = self.digits[i] as u64 + (rank - self.rank);
            loop {
                let radix = (self.space.n - i) as u64;
                if sum < radix {
                    self.digits[i] = sum as u32;
                    break;
                }
                self.digits[i] = (sum % radix) as u32;
                i -= 1;
                sum = self.digits[i] as u64 + sum / radix;
            }
            i
        } else {
            let mut rest = rank;
            for i in 0..k {
                self.digits[i] = (rest / self.space.weights[i]) as u32;
                rest %= self.space.weights[i];
            }
            0
        };
        for i in first..k {
            let place = nth_set_bit(!self.taken[i], self.digits[i]);
            self.places[i] = place as u8;
            self.taken[i + 1] = self.taken[i] | 1 << place;
        }
        self.rank = rank;
        self.valid = true;
        &self.places[..k]
    }
}

/// One placement prepared for ranking its one-item moves incrementally: moving item
/// `i` from place `a` to a free place `b` changes digit `i`, and the digit of each
/// later item whose place lies strictly between `a` and `b` by one (a neighbour on a
/// board row has none in between, one a row away has at most `cols - 1`).
///
/// ```
/// use antipode::rank::partial::Placements;
///
/// let space = Placements::new(9, 3);
/// let places = [4, 0, 8];
/// let prepared = space.prepare(&places, space.rank(&places));
/// // Item 1 moves from cell 0 to cell 1: the rank as if ranked from scratch.
/// assert_eq!(prepared.rank_after_move(1, 1), space.rank(&[4, 1, 8]));
/// ```
#[derive(Debug, Clone)]
pub struct Prepared<'a> {
    space: &'a Placements,
    rank: u64,
    places: [u8; 32],
    /// `item_on[place]`: the item on each place.
    item_on: [u8; 32],
    /// Every taken place.
    taken: u32,
}

impl Placements {
    /// `places` (of rank `rank`) prepared for [`Prepared::rank_after_move`].
    #[inline(always)]
    #[must_use]
    pub fn prepare(&self, places: &[u8], rank: u64) -> Prepared<'_> {
        debug_assert_eq!(self.rank(places), rank);
        let mut prepared = Prepared {
            space: self,
            rank,
            places: [0; 32],
            item_on: [0; 32],
            taken: 0,
        };
        for (i, &place) in places.iter().enumerate() {
            prepared.places[i] = place;
            prepared.item_on[place as usize % 32] = i as u8;
            prepared.taken |= 1 << place;
        }
        prepared
    }
}

impl Prepared<'_> {
    /// The rank after item `item` moves to the free place `to`.
    #[inline(always)]
    #[must_use]
    pub fn rank_after_move(&self, item: usize, to: u32) -> u64 {
        let item = item % 32;
        debug_assert!(self.taken >> to & 1 == 0);
        let weights = &self.space.weights;
        rank_after_move(
            self.rank,
            item as u8,
            weights[item],
            self.places[item] as u32,
            to,
            self.taken,
            |place| {
                let other = self.item_on[place as usize % 32];
                (other, weights[other as usize % 32])
            },
        )
    }
}

/// The rank of a placement after its item `item` (of weight `weight`,
/// [`Placements::weight`]) moves from place `from` to the free place `to`, given the
/// rank before, the taken places `taken`, and `item_on(place)`: the item on a taken
/// place and its weight. The moving item's digit changes by `to - from`, less one for
/// each earlier item on a place strictly between the two; each later item there has its
/// digit changed by one. A move along a board row passes over no place, one a row away
/// over at most `cols - 1`: a search can keep a pattern's rank this way move by move.
///
/// ```
/// use antipode::rank::partial::{Placements, rank_after_move};
///
/// let space = Placements::new(9, 3);
/// let places = [4u8, 0, 8];
/// let taken = places.iter().fold(0u32, |t, &p| t | 1 << p);
/// let item_on = |place: u32| {
///     let item = places.iter().position(|&p| p as u32 == place).unwrap();
///     (item as u8, space.weight(item))
/// };
/// // Item 1 moves from cell 0 to cell 7, over item 0 on cell 4.
/// let moved = rank_after_move(space.rank(&places), 1, space.weight(1), 0, 7, taken, item_on);
/// assert_eq!(moved, space.rank(&[4, 7, 8]));
/// ```
#[inline(always)]
#[must_use]
pub fn rank_after_move(
    rank: u64,
    item: u8,
    weight: u64,
    from: u32,
    to: u32,
    taken: u32,
    item_on: impl Fn(u32) -> (u8, u64),
) -> u64 {
    let (low, high) = if from < to { (from, to) } else { (to, from) };
    let mut between = taken & ((1u32 << high) - 1) & !((2u32 << low).wrapping_sub(1));
    // Counted as a move up, then negated for a move down.
    let mut delta = (high - low) as u64 * weight;
    while between != 0 {
        let (other, other_weight) = item_on(between.trailing_zeros());
        between &= between - 1;
        delta = if other < item {
            delta.wrapping_sub(weight)
        } else {
            delta.wrapping_add(other_weight)
        };
    }
    if from < to {
        rank.wrapping_add(delta)
    } else {
        rank.wrapping_sub(delta)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn every_placement_of_three_on_five_has_its_own_rank() {
        let space = Placements::new(5, 3);
        assert_eq!(space.count(), 60);
        let mut seen = [false; 60];
        for a in 0..5u8 {
            for b in (0..5u8).filter(|&b| b != a) {
                for c in (0..5u8).filter(|&c| c != a && c != b) {
                    let r = space.rank(&[a, b, c]) as usize;
                    assert!(!seen[r], "rank {r} twice");
                    seen[r] = true;
                }
            }
        }
        assert!(seen.iter().all(|&s| s));
        assert_eq!(space.rank(&[0, 1, 2]), 0);
        assert_eq!(space.rank(&[4, 3, 2]), 59);
    }

    #[test]
    fn counts() {
        assert_eq!(Placements::new(16, 7).count(), 57_657_600);
        assert_eq!(Placements::new(25, 6).count(), 127_512_000);
        assert_eq!(Placements::new(9, 0).count(), 1);
        assert_eq!(Placements::new(9, 9).count(), 362_880);
        assert_eq!(Placements::checked_count(16, 8), Some(518_918_400));
        assert_eq!(Placements::checked_count(32, 32), None);
    }

    fn placement() -> impl Strategy<Value = (usize, Vec<u8>)> {
        (1usize..=32).prop_flat_map(|n| {
            (0..=n.min(12)).prop_flat_map(move |k| {
                Just((0..n as u8).collect::<Vec<u8>>())
                    .prop_shuffle()
                    .prop_map(move |all| (n, all[..k].to_vec()))
            })
        })
    }

    proptest! {
        #[test]
        fn unrank_inverts_rank((n, places) in placement()) {
            let space = Placements::new(n, places.len());
            let rank = space.rank(&places);
            prop_assert!(rank < space.count());
            let mut back = vec![0u8; places.len()];
            space.unrank(rank, &mut back);
            prop_assert_eq!(back, places);
        }

        #[test]
        fn moves_rank_as_from_scratch((n, places) in placement(), item in any::<usize>(), to in any::<u32>()) {
            prop_assume!(!places.is_empty() && places.len() < n);
            let space = Placements::new(n, places.len());
            let prepared = space.prepare(&places, space.rank(&places));
            let item = item % places.len();
            let free: Vec<u32> = (0..n as u32).filter(|p| !places.contains(&(*p as u8))).collect();
            let to = free[to as usize % free.len()];
            let mut moved = places.clone();
            moved[item] = to as u8;
            prop_assert_eq!(prepared.rank_after_move(item, to), space.rank(&moved));
        }

        #[test]
        fn the_cursor_walks_like_unrank(n in 1usize..=16, k in 0usize..=8, seed in any::<u64>(), gaps in proptest::collection::vec(0u64..6000, 1..200)) {
            let k = k.min(n);
            let space = Placements::new(n, k);
            let mut cursor = Cursor::new(&space);
            let mut rank = seed % space.count();
            let mut places = vec![0u8; k];
            for gap in gaps {
                space.unrank(rank, &mut places);
                prop_assert_eq!(cursor.seek(rank), places.as_slice());
                rank = (rank + gap) % space.count();
            }
        }

        #[test]
        fn rank_inverts_unrank(n in 1usize..=16, k in 0usize..=8, seed in any::<u64>()) {
            let k = k.min(n);
            let space = Placements::new(n, k);
            let rank = seed % space.count();
            let mut places = vec![0u8; k];
            space.unrank(rank, &mut places);
            prop_assert_eq!(space.rank(&places), rank);
        }
    }
}
