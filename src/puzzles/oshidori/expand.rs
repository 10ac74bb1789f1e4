//! Fast neighbour ranks for `oshidori:K` (two stones of each kind), the BFS hot path.
//!
//! The stones' order (blanks left out) is ranked lexicographically among the
//! arrangements of the multiset. With at most two stones per kind, the state of the
//! unplaced stones is two bit masks: kinds with at least one left (`ones`) and kinds
//! with two left (`twos`). The arrangements of `n` unplaced stones are
//! `n! / 2^popcount(twos)`, so the rank contribution of a stone `x` is
//! `((n - 1)! * below(x)) >> popcount(twos)`, `below(x)` being the unplaced stones of
//! a smaller kind: two popcounts, one multiplication, one shift, no division.
//!
//! A move takes the stones at sequence places `s, s + 1` to where the blanks are, which
//! rotates the stretch of the sequence between the pair and the blanks by two places.
//! Only that stretch's contributions change, so a neighbour's rank is the state's rank
//! minus the stretch's old contributions plus its new ones. Consecutive indices are
//! decoded by stepping to the next arrangement rather than unranking from scratch.

use super::{MAX_CELLS, MAX_KINDS};
use crate::rank::{factorial, multiset};

/// The most stones: two of each kind.
const MAX_STONES: usize = MAX_CELLS - 2;
/// Index gaps up to this many are walked with next-arrangement steps.
const MAX_STEPS: u64 = 8;

/// Bits set in each mask of kinds: a table read beats the software popcount of a
/// baseline x86-64 build.
const POPCOUNT: [u8; 1 << MAX_KINDS] = {
    let mut table = [0u8; 1 << MAX_KINDS];
    let mut i = 0;
    while i < 1 << MAX_KINDS {
        table[i] = (i as u32).count_ones() as u8;
        i += 1;
    }
    table
};

#[inline(always)]
fn popcount(mask: u32) -> u32 {
    POPCOUNT[mask as usize & ((1 << MAX_KINDS) - 1)] as u32
}

/// The unplaced stones while a sequence is read left to right.
#[derive(Clone, Copy)]
struct Unplaced {
    /// Kinds with at least one stone unplaced.
    ones: u32,
    /// Kinds with both stones unplaced.
    twos: u32,
    /// How many stones are unplaced.
    count: usize,
}

impl Unplaced {
    fn all(kinds: usize) -> Unplaced {
        let mask = (1u32 << kinds) - 1;
        Unplaced {
            ones: mask,
            twos: mask,
            count: 2 * kinds,
        }
    }

    /// The rank contribution of placing `stone` next, and the state after it.
    #[inline(always)]
    fn place(&mut self, stone: u8) -> u64 {
        let below_mask = (1u32 << stone) - 1;
        let below = (popcount(self.ones & below_mask) + popcount(self.twos & below_mask)) as u64;
        let contribution = (factorial(self.count - 1) * below) >> popcount(self.twos);
        // Take one stone of the kind: from `twos` if both were left, else from `ones`.
        let bit = 1u32 << stone;
        let had_two = self.twos & bit;
        self.twos ^= had_two;
        self.ones ^= bit ^ had_two;
        self.count -= 1;
        contribution
    }
}

/// One decoded index: the stones' order and the blanks' place.
struct Decoded {
    stones: [u8; MAX_STONES],
    /// Cell of the left blank = number of stones left of the blanks.
    blank: usize,
    /// The rank of `stones`.
    rank: u64,
}

/// Steps `stones` to the next arrangement in lexicographic order; false after the last.
fn next_arrangement(stones: &mut [u8]) -> bool {
    let n = stones.len();
    let Some(i) = (0..n.saturating_sub(1))
        .rev()
        .find(|&i| stones[i] < stones[i + 1])
    else {
        return false;
    };
    let j = (i + 1..n)
        .rev()
        .find(|&j| stones[j] > stones[i])
        .unwrap_or(i + 1);
    stones.swap(i, j);
    stones[i + 1..].reverse();
    true
}

/// Calls `visit(index, neighbours)` for each of `indices` (ascending) of `oshidori:K`.
pub(super) fn expand_sorted(kinds: usize, indices: &[u64], mut visit: impl FnMut(u64, &[u64])) {
    let n = 2 * kinds;
    let per_place = factorial(n) >> kinds;
    let counts = [2u8; MAX_KINDS];
    let mut current: Option<(u64, Decoded)> = None;
    let mut neighbours = [0u64; MAX_CELLS];
    // Per place p of the sequence: the unplaced stones before it, and the sum of the
    // contributions of places < p.
    let mut before = [Unplaced::all(kinds); MAX_STONES + 1];
    let mut sums = [0u64; MAX_STONES + 1];
    for &index in indices {
        let decoded = match current.take() {
            Some((at, mut d)) if index / per_place == at / per_place && index - at <= MAX_STEPS => {
                for _ in at..index {
                    next_arrangement(&mut d.stones[..n]);
                }
                d.rank = index % per_place;
                d
            }
            _ => {
                let mut d = Decoded {
                    stones: [0; MAX_STONES],
                    blank: (index / per_place) as usize,
                    rank: index % per_place,
                };
                multiset::unrank(d.rank, &counts[..kinds], &mut d.stones[..n]);
                d
            }
        };
        let stones = &decoded.stones;
        let mut unplaced = Unplaced::all(kinds);
        for p in 0..n {
            before[p] = unplaced;
            sums[p + 1] = sums[p] + unplaced.place(stones[p]);
        }
        let blank = decoded.blank;
        let rank = decoded.rank;
        let mut count = 0;
        // Pairs left of the blanks: the stretch [s, blank) becomes
        // stones[s + 2..blank], then the pair; the blanks go to cell s.
        for s in 0..blank.saturating_sub(1) {
            let mut state = before[s];
            let mut stretch = 0;
            for &stone in &stones[s + 2..blank] {
                stretch += state.place(stone);
            }
            stretch += state.place(stones[s]);
            stretch += state.place(stones[s + 1]);
            neighbours[count] = s as u64 * per_place + rank - (sums[blank] - sums[s]) + stretch;
            count += 1;
        }
        // Pairs right of the blanks: the stretch [blank, s + 2) becomes the pair, then
        // stones[blank..s]; the blanks go to cell s + 2.
        for s in blank..n.saturating_sub(1) {
            let mut state = before[blank];
            let mut stretch = state.place(stones[s]);
            stretch += state.place(stones[s + 1]);
            for &stone in &stones[blank..s] {
                stretch += state.place(stone);
            }
            neighbours[count] =
                (s + 2) as u64 * per_place + rank - (sums[s + 2] - sums[blank]) + stretch;
            count += 1;
        }
        visit(index, &neighbours[..count]);
        current = Some((index, decoded));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stepping_and_contributions_agree_with_the_multiset_ranking() {
        for kinds in 1..=4 {
            let counts = vec![2u8; kinds];
            let n = 2 * kinds;
            let mut stepped = vec![0u8; n];
            multiset::unrank(0, &counts, &mut stepped);
            for r in 0..multiset::arrangements(&counts) {
                let mut stones = vec![0u8; n];
                multiset::unrank(r, &counts, &mut stones);
                assert_eq!(stones, stepped, "kinds {kinds}, rank {r}");
                assert_eq!(multiset::rank(&stepped, &counts), r);
                let mut unplaced = Unplaced::all(kinds);
                let sum: u64 = stones.iter().map(|&s| unplaced.place(s)).sum();
                assert_eq!(sum, r);
                next_arrangement(&mut stepped);
            }
        }
    }
}
