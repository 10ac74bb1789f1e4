//! Ranking of where kinds of identical pieces stand, kind by kind: the places the first
//! kind takes, as a combination of all the places (colex, [`super::combination`]); the
//! places the second kind takes, as a combination of the places left; and so on. The
//! digits are read in mixed radix, the first kind most significant, with radix
//! `C(places left, count)`. A sliding-block puzzle's repeated pieces and a twisty
//! puzzle's identical pieces are ranked this way; what no kind takes is left to the
//! caller (distinct pieces, ranked as a permutation, or the one kind left).
//!
//! ```
//! use antipode::rank::kinds::{self, PieceKind};
//!
//! // Two 'a's and one 'b' over five places; the places left hold the rest.
//! let kinds = [PieceKind { code: b'a', count: 2 }, PieceKind { code: b'b', count: 1 }];
//! let items = *b"xaxba";
//! let (rank, left) = kinds::rank(&items, 0b11111, &kinds);
//! assert_eq!(kinds::count(5, &kinds), Some(30));
//! assert_eq!(left, 0b00101);
//! let mut out = *b"xxxxx";
//! assert_eq!(kinds::unrank(rank, 0b11111, &kinds, &mut out), left);
//! assert_eq!(&out, b"xaxba");
//! ```

use super::{binomial, combination, permutation};

/// One kind of identical pieces: the code that marks it among the items, and how many
/// places it takes.
///
/// ```
/// use antipode::rank::kinds::{self, PieceKind};
///
/// // Two identical pieces over four places: C(4, 2) = 6 ranks.
/// let pair = [PieceKind { code: 1, count: 2 }];
/// assert_eq!(kinds::count(4, &pair), Some(6));
/// assert_eq!(kinds::rank(&[1, 1, 0, 0], 0b1111, &pair), (0, 0b1100));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PieceKind {
    /// The kind's code in the items.
    pub code: u8,
    /// The number of its pieces.
    pub count: u8,
}

/// The number of ranks: the product over the kinds of `C(places left, count)`, for
/// `places` places; `None` if it does not fit in 64 bits or the kinds need more places.
#[must_use]
pub fn count(places: usize, kinds: &[PieceKind]) -> Option<u64> {
    let mut left = places;
    kinds.iter().try_fold(1u64, |total, kind| {
        let count = usize::from(kind.count);
        let radix = binomial(left, count);
        left = left.checked_sub(count)?;
        total.checked_mul(radix)
    })
}

/// The rank of where `kinds` stand in `items` over the places of the mask `places`
/// (at most 32, bit `p` for `items[p]`), and the places no kind takes. Each kind must
/// take exactly its count of those places.
#[inline(always)]
#[must_use]
pub fn rank(items: &[u8], mut places: u32, kinds: &[PieceKind]) -> (u64, u32) {
    let mut rank = 0u64;
    for kind in kinds {
        let radix = binomial(places.count_ones() as usize, usize::from(kind.count));
        // The colex rank of the kind's places among the places left: a place's term
        // counts the places left below it.
        let (mut digit, mut members, mut taken) = (0u64, 0usize, 0u32);
        let mut bits = places;
        while bits != 0 {
            let p = bits.trailing_zeros();
            bits &= bits - 1;
            if items[p as usize] == kind.code {
                members += 1;
                let below = places & ((1u32 << p) - 1);
                digit += binomial(below.count_ones() as usize, members);
                taken |= 1 << p;
            }
        }
        rank = rank * radix + digit;
        places &= !taken;
    }
    (rank, places)
}

/// Inverse of [`rank`]: writes each kind's code into the places of `out` it takes, and
/// returns the places no kind takes (their items are left as they were).
pub fn unrank(rank: u64, places: u32, kinds: &[PieceKind], out: &mut [u8]) -> u32 {
    unrank_with(rank, places, kinds, out, |_, digit, n, k| {
        combination::unrank(digit, n, k)
    })
}

/// [`unrank`] with the combinations' unranking given: `combination(kind, digit, n, k)`
/// is the `k`-subset of `0..n` of colex rank `digit` for the kind at index `kind` (a
/// caller may look it up in a table).
#[inline(always)]
pub fn unrank_with(
    mut rank: u64,
    mut places: u32,
    kinds: &[PieceKind],
    out: &mut [u8],
    combination: impl Fn(usize, u64, usize, usize) -> u32,
) -> u32 {
    assert!(kinds.len() <= 32, "at most 32 kinds over 32 places");
    let mut digits = [0u64; 32];
    let mut left = places.count_ones() as usize;
    let mut radices = [0u64; 32];
    for (radix, kind) in radices.iter_mut().zip(kinds) {
        *radix = binomial(left, usize::from(kind.count));
        left -= usize::from(kind.count);
    }
    for k in (0..kinds.len()).rev() {
        digits[k] = rank % radices[k];
        rank /= radices[k];
    }
    for (k, kind) in kinds.iter().enumerate() {
        let n = places.count_ones() as usize;
        let mut bits = combination(k, digits[k], n, usize::from(kind.count));
        let mut taken = 0u32;
        while bits != 0 {
            let b = bits.trailing_zeros();
            bits &= bits - 1;
            let p = permutation::nth_set_bit(places, b);
            out[p as usize] = kind.code;
            taken |= 1 << p;
        }
        places &= !taken;
    }
    places
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn rank_unrank_bijection(counts in proptest::collection::vec(1u8..4, 1..6), spare in 0usize..4, seed: u64) {
            let kinds: Vec<PieceKind> = counts
                .iter()
                .enumerate()
                .map(|(i, &count)| PieceKind { code: i as u8, count })
                .collect();
            let n = counts.iter().map(|&c| c as usize).sum::<usize>() + spare;
            let all = (1u32 << n) - 1;
            let total = count(n, &kinds).unwrap();
            let rank_in = seed % total;
            let mut out = vec![u8::MAX; n];
            let left = unrank(rank_in, all, &kinds, &mut out);
            prop_assert_eq!(left.count_ones() as usize, spare);
            for (p, &item) in out.iter().enumerate() {
                prop_assert_eq!(item == u8::MAX, left >> p & 1 == 1);
            }
            prop_assert_eq!(rank(&out, all, &kinds), (rank_in, left));
        }
    }

    #[test]
    fn every_rank_is_one_arrangement() {
        // Two, two and one over six places: 6!/(2!2!1!1!) = 180 arrangements.
        let kinds = [
            PieceKind { code: 0, count: 2 },
            PieceKind { code: 1, count: 2 },
            PieceKind { code: 2, count: 1 },
        ];
        let total = count(6, &kinds).unwrap();
        assert_eq!(total, 180);
        let mut seen = std::collections::HashSet::new();
        for r in 0..total {
            let mut out = [9u8; 6];
            unrank(r, 0b111111, &kinds, &mut out);
            assert!(seen.insert(out));
        }
        assert_eq!(count(3, &kinds), None);
    }
}
