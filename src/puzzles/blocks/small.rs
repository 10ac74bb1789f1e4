//! The rank of what the free cells of one arrangement hold: a permutation of a
//! multiset (the empty cells, groups of interchangeable 1x1 pieces, distinct 1x1
//! pieces), ranked in mixed radix without a division.
//!
//! With the free cells numbered `0..F` in cell order: the places of the empty cells (even
//! of a lone one) are a combination of `0..F` (colex rank); the places of the first group of
//! interchangeable pieces a combination of the places left; and so on; the distinct
//! pieces fill the remaining places in some order, a permutation (Lehmer rank):
//! `rank = ((c_0 * R_1 + c_1) * R_2 + ...) * D! + perm`, where `R_k` is the number of
//! combinations of kind `k` and `D` the number of distinct pieces. The product of the
//! radices is the multinomial `F! / (e! g_1! ...)`: a bijection.

use crate::rank::kinds::{self, PieceKind};
use crate::rank::{binomial, combination, factorial, permutation};

/// Item codes: 0 an empty cell, `1 + k` the k-th group of 1x1 pieces.
#[derive(Debug, Clone)]
pub(super) struct SmallRanking {
    /// Free cells (items).
    items: usize,
    /// Codes that occur more than once (and the empty cells), with their count, in
    /// rank order.
    repeated: Vec<PieceKind>,
    /// For each code, its index among the distinct pieces (or `NOT_DISTINCT`).
    distinct_index: [u8; 256],
    /// For each distinct index, its code.
    distinct_code: Vec<u8>,
    total: u64,
    /// For each repeated kind with few combinations, the compact place mask of each
    /// combination rank (at most [`COMBINATION_TABLE`] entries).
    combinations: Vec<Option<std::sync::Arc<Vec<u32>>>>,
    /// Every order of the last `min(D, TAIL_PIECES)` distinct pieces by rank, as
    /// bytes naming each position's piece among those pieces sorted (7! entries,
    /// 40 KB, at most), shared by clones. The first pieces' Lehmer digits are divided
    /// out of the rank, the rest come from this table.
    tail_orders: std::sync::Arc<Vec<u64>>,
}

/// Most combinations of a repeated kind tabulated for unranking.
const COMBINATION_TABLE: u64 = 1 << 16;

/// The last distinct pieces whose orders are tabulated for unranking (a table small
/// enough to stay in the caches).
const TAIL_PIECES: usize = 7;

const NOT_DISTINCT: u8 = u8::MAX;

/// Turns `order` into the next permutation in lexicographic order (the next rank) and
/// returns the first place that changed, or `None` after the last permutation.
#[inline(always)]
fn next_order(order: &mut [u8]) -> Option<usize> {
    let d = order.len();
    let i = (0..d.saturating_sub(1))
        .rev()
        .find(|&i| order[i] < order[i + 1])?;
    let j = (i + 1..d).rev().find(|&j| order[j] > order[i])?;
    order.swap(i, j);
    order[i + 1..].reverse();
    Some(i)
}

/// The Lehmer digit of distinct piece `item` after the pieces in `seen` (one bit per
/// distinct index): its number less the smaller pieces already placed.
#[inline(always)]
fn lehmer_digit(item: u8, seen: u32) -> u64 {
    u64::from(item as u32 - (seen & ((1u32 << item) - 1)).count_ones())
}

/// The order of the distinct pieces over their places, kept with what a change to a
/// few consecutive positions needs to be ranked: for each position, the pieces before
/// it and the part of the Lehmer rank they make.
#[derive(Debug, Clone)]
pub(super) struct Order {
    /// The distinct index of the piece at each position.
    pieces: [u8; 32],
    /// `seen[i]`: the pieces at positions below `i`, one bit per distinct index.
    seen: [u32; 33],
    /// `partial[i]`: the Lehmer rank of the digits at positions below `i`.
    partial: [u64; 33],
    len: usize,
}

impl Order {
    /// Its Lehmer rank.
    #[inline(always)]
    pub fn rank(&self) -> u64 {
        self.partial[self.len]
    }
}

impl Default for Order {
    fn default() -> Order {
        Order {
            pieces: [0; 32],
            seen: [0; 33],
            partial: [0; 33],
            len: 0,
        }
    }
}

impl SmallRanking {
    /// The ranking of `counts[code]` items of each code over `sum(counts)` places.
    pub fn new(counts: &[u8]) -> SmallRanking {
        let items: usize = counts.iter().map(|&c| c as usize).sum();
        let mut repeated = Vec::new();
        let mut distinct_index = [NOT_DISTINCT; 256];
        let mut distinct_code = Vec::new();
        let mut left = items;
        let mut total = 1u64;
        for (code, &count) in counts.iter().enumerate() {
            let count = count as usize;
            if count == 1 && code != 0 {
                distinct_index[code] = distinct_code.len() as u8;
                distinct_code.push(code as u8);
            } else if count > 1 || code == 0 {
                let radix = binomial(left, count);
                repeated.push(PieceKind {
                    code: code as u8,
                    count: count as u8,
                });
                total *= radix;
                left -= count;
            }
        }
        total *= factorial(distinct_code.len());
        let d = distinct_code.len();
        // Lexicographic successors list the orders in rank order, without a division.
        let tail = d.min(TAIL_PIECES);
        let tail_orders = {
            let mut order: [u8; 8] = std::array::from_fn(|k| k as u8);
            let mut table = Vec::with_capacity(factorial(tail) as usize);
            loop {
                table.push(u64::from_le_bytes(order));
                if next_order(&mut order[..tail]).is_none() {
                    break;
                }
            }
            std::sync::Arc::new(table)
        };
        let mut left = items;
        let combinations = repeated
            .iter()
            .map(|kind| {
                let count = usize::from(kind.count);
                let radix = binomial(left, count);
                let table = (radix <= COMBINATION_TABLE).then(|| {
                    std::sync::Arc::new(
                        (0..radix)
                            .map(|r| combination::unrank(r, left, count))
                            .collect(),
                    )
                });
                left -= count;
                table
            })
            .collect();
        SmallRanking {
            items,
            repeated,
            distinct_index,
            distinct_code,
            total,
            combinations,
            tail_orders,
        }
    }

    /// The number of ranks.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// The rank of `items[..F]`.
    #[inline(always)]
    pub fn rank(&self, items: &[u8; 64]) -> u64 {
        let (combinations, distinct_places) = self.combination_part(items);
        combinations * factorial(self.distinct_code.len())
            + self.permutation_part(items, distinct_places)
    }

    /// Whether `code` is one of the distinct pieces (swapping two of them leaves the
    /// combination part of the rank as it is).
    #[inline(always)]
    pub fn is_distinct(&self, code: u8) -> bool {
        self.distinct_index[code as usize] != NOT_DISTINCT
    }

    /// The mixed-radix rank of the places of the repeated kinds, and the places left
    /// to the distinct pieces.
    #[inline(always)]
    pub fn combination_part(&self, items: &[u8; 64]) -> (u64, u32) {
        kinds::rank(items, (1u32 << self.items) - 1, &self.repeated)
    }

    /// The Lehmer rank of the distinct pieces' order over `places`. The digits are
    /// independent of each other (a piece's number less the smaller ones already
    /// seen), so their products with the factorials do not wait on one another.
    #[inline(always)]
    pub fn permutation_part(&self, items: &[u8; 64], mut places: u32) -> u64 {
        let d = self.distinct_code.len();
        let (mut seen, mut perm, mut i) = (0u32, 0u64, 0usize);
        while places != 0 {
            let p = places.trailing_zeros();
            places &= places - 1;
            let item = self.distinct_index[items[p as usize] as usize];
            perm += lehmer_digit(item, seen) * factorial(d - 1 - i);
            seen |= 1 << item;
            i += 1;
        }
        perm
    }

    /// Sets `order` to the order of the distinct pieces with Lehmer rank `perm`.
    #[inline(always)]
    pub fn set_order(&self, order: &mut Order, perm: u64) {
        order.pieces = self.unrank_order(perm);
        order.len = self.distinct_code.len();
        self.refresh(order, 0);
    }

    /// Steps `order` to the next Lehmer rank; false after the last one (`order` is then
    /// unchanged). Only the positions from the first that changes are worked out again.
    #[inline(always)]
    pub fn next_order(&self, order: &mut Order) -> bool {
        match next_order(&mut order.pieces[..order.len]) {
            Some(first) => {
                self.refresh(order, first);
                true
            }
            None => false,
        }
    }

    /// Recomputes `seen` and `partial` past position `first` (those up to it hold).
    #[inline(always)]
    fn refresh(&self, order: &mut Order, first: usize) {
        let d = order.len;
        let (mut seen, mut perm) = (order.seen[first], order.partial[first]);
        for i in first..d {
            let item = order.pieces[i];
            perm += lehmer_digit(item, seen) * factorial(d - 1 - i);
            seen |= 1 << item;
            order.seen[i + 1] = seen;
            order.partial[i + 1] = perm;
        }
    }

    /// The Lehmer rank of `order` after the piece at position `from` moves to
    /// position `to`, the pieces between shifting by one towards `from`. Only the
    /// digits from one position to the other change: the work is their distance.
    #[inline(always)]
    pub fn moved(&self, order: &Order, from: usize, to: usize) -> u64 {
        if from == to {
            return order.partial[order.len];
        }
        let (low, high) = (from.min(to), from.max(to));
        let piece = |i: usize| {
            if i == to {
                order.pieces[from]
            } else if from < to {
                order.pieces[i + 1]
            } else {
                order.pieces[i - 1]
            }
        };
        self.relabelled(order, low, high, piece)
    }

    /// The Lehmer rank of `order` with `piece(i)` at the positions `low..=high` (the
    /// same pieces as before there, in another order).
    #[inline(always)]
    fn relabelled(
        &self,
        order: &Order,
        low: usize,
        high: usize,
        piece: impl Fn(usize) -> u8,
    ) -> u64 {
        let d = self.distinct_code.len();
        let (mut seen, mut perm) = (order.seen[low], order.partial[low]);
        for i in low..=high {
            let item = piece(i);
            perm += lehmer_digit(item, seen) * factorial(d - 1 - i);
            seen |= 1 << item;
        }
        perm + order.partial[order.len] - order.partial[high + 1]
    }

    /// `D!`, the number of orders of the distinct pieces.
    #[inline(always)]
    pub fn orders(&self) -> u64 {
        factorial(self.distinct_code.len())
    }

    /// The order of the distinct pieces with Lehmer rank `perm`: the first digits by
    /// division, the last [`TAIL_PIECES`] positions from the table.
    #[inline(always)]
    fn unrank_order(&self, perm: u64) -> [u8; 32] {
        let d = self.distinct_code.len();
        let tail = d.min(TAIL_PIECES);
        let mut order = [0u8; 32];
        let mut unused: u32 = (1u32 << d) - 1;
        let tail_count = factorial(tail);
        let (mut head, tail_rank) = (perm / tail_count, perm % tail_count);
        for (i, slot) in order[..d - tail].iter_mut().enumerate() {
            // The weight of digit i in units of tail_count: (d-1-i)! / tail!.
            let weight = factorial(d - 1 - i) / tail_count;
            let digit = (head / weight) as u32;
            head %= weight;
            let item = permutation::nth_set_bit(unused, digit);
            *slot = item as u8;
            unused &= !(1u32 << item);
        }
        let mut sorted = [0u8; TAIL_PIECES];
        for slot in sorted[..tail].iter_mut() {
            *slot = unused.trailing_zeros() as u8;
            unused &= unused - 1;
        }
        let picks = self.tail_orders[tail_rank as usize].to_le_bytes();
        for (slot, &pick) in order[d - tail..d].iter_mut().zip(&picks) {
            *slot = sorted[pick as usize];
        }
        order
    }

    /// The items with rank `rank`, into `out[..F]`.
    pub fn unrank(&self, rank: u64, out: &mut [u8]) {
        let d = self.distinct_code.len();
        let perm = rank % factorial(d);
        let all = (1u32 << self.items) - 1;
        let mut remaining = kinds::unrank_with(
            rank / factorial(d),
            all,
            &self.repeated,
            out,
            |k, digit, n, count| match &self.combinations[k] {
                Some(table) => table[digit as usize],
                None => combination::unrank(digit, n, count),
            },
        );
        let order = self.unrank_order(perm);
        let mut k = 0;
        while remaining != 0 {
            let p = remaining.trailing_zeros() as usize;
            remaining &= remaining - 1;
            out[p] = self.distinct_code[order[k] as usize];
            k += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bijection_onto_the_multinomial() {
        for counts in [
            vec![2u8, 1, 1, 1],
            vec![1, 2, 1, 3],
            vec![2, 1, 1, 1, 1, 1, 1, 1, 2],
            vec![2, 1, 1, 1, 1, 1, 1, 1, 1, 1],
            vec![1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1],
            vec![3],
        ] {
            let ranking = SmallRanking::new(&counts);
            let n: usize = counts.iter().map(|&c| c as usize).sum();
            assert_eq!(
                ranking.total(),
                crate::rank::multiset::arrangements(&counts)
            );
            let mut seen = std::collections::HashSet::new();
            let step = (ranking.total() / 5000).max(1);
            for r in (0..ranking.total()).step_by(step as usize) {
                let mut items = [0u8; 32];
                ranking.unrank(r, &mut items);
                let mut histogram = vec![0u8; counts.len()];
                for &i in &items[..n] {
                    histogram[i as usize] += 1;
                }
                assert_eq!(histogram, counts);
                let mut full = [0u8; 64];
                full[..32].copy_from_slice(&items);
                assert_eq!(ranking.rank(&full), r);
                assert!(seen.insert(items[..n].to_vec()));
            }
            // Stepping the order agrees with unranking it, up to the last order.
            let orders = ranking.orders();
            let mut order = Order::default();
            let first = orders.saturating_sub(3000);
            ranking.set_order(&mut order, first);
            for perm in first + 1..orders {
                assert!(ranking.next_order(&mut order));
                let mut fresh = Order::default();
                ranking.set_order(&mut fresh, perm);
                assert_eq!(order.pieces, fresh.pieces);
                assert_eq!((order.rank(), order.partial), (perm, fresh.partial));
                assert_eq!(order.seen, fresh.seen);
            }
            assert!(!ranking.next_order(&mut order), "past the last order");
        }
    }

    /// The incremental Lehmer ranks of [`Order`] agree with ranking from scratch, for
    /// every move of a piece to another position, on orders across the whole range.
    #[test]
    fn reordered_ranks_agree_with_ranking_from_scratch() {
        for counts in [vec![1u8; 10], vec![2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]] {
            let ranking = SmallRanking::new(&counts);
            let n: usize = counts.iter().map(|&c| c as usize).sum();
            let d = ranking.distinct_code.len();
            let step = ranking.total() / 97;
            for r in (0..ranking.total()).step_by(step as usize) {
                let mut items = [0u8; 64];
                ranking.unrank(r, &mut items[..n]);
                let (_, places) = ranking.combination_part(&items);
                let mut order = Order::default();
                ranking.set_order(&mut order, r % ranking.orders());
                assert_eq!(order.rank(), ranking.permutation_part(&items, places));
                let place: Vec<usize> = (0..n).filter(|&p| places >> p & 1 == 1).collect();
                for a in 0..d {
                    for b in 0..d {
                        // The piece at position a moves to position b.
                        let mut moved = items;
                        let piece = moved[place[a]];
                        if a < b {
                            for k in a..b {
                                moved[place[k]] = moved[place[k + 1]];
                            }
                        } else {
                            for k in (b..a).rev() {
                                moved[place[k + 1]] = moved[place[k]];
                            }
                        }
                        moved[place[b]] = piece;
                        assert_eq!(
                            ranking.moved(&order, a, b),
                            ranking.permutation_part(&moved, places)
                        );
                    }
                }
            }
        }
    }
}
