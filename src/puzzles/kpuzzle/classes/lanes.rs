//! The rank of a permutation of at most 16 pieces held in one 16-byte vector: every
//! Lehmer digit at once (one compare per place, no chain from one digit to the
//! next), weighed in two multiply-adds of neighbouring lanes and four scalar ones.
//!
//! Digit `i` counts the places `j > i` whose piece is smaller than piece `i`. The
//! digits `d_i < k - i` are a mixed-radix number whose place `i` weighs `(k-1-i)!`:
//! neighbouring digits join as `e_t = d_2t (k-1-2t) + d_2t+1` (weight `(k-2-2t)!`,
//! below 256, one `pmaddubsw`), those as `f_u = e_2u (k-2-4u)(k-3-4u) + e_2u+1`
//! (weight `(k-4-4u)!`, one `pmaddwd`; in the last quad, where that is not defined,
//! `e_2u+1` is 0 and `f_u = e_2u`, weight `(k-2-4u)!`), and the four `f_u` are
//! weighed as integers.

#[cfg(target_arch = "x86_64")]
use crate::cpu::Ssse3;

/// The constants of ranking permutations of `k <= 16` pieces in lanes.
#[derive(Debug, Clone, Copy)]
pub(super) struct LaneRank {
    /// `0x7f` in the lanes past the orbit: no piece there is smaller than another.
    padding: [u8; 16],
    /// Per lane pair `t`: `k-1-2t` and 1 (signed bytes).
    pair_weights: [i8; 16],
    /// Per pair of pairs `u`: `(k-2-4u)(k-3-4u)` and 1 (1 and 1 in the last quad).
    quad_weights: [i16; 8],
    /// Per `u`: the weight of `f_u`.
    weights: [u64; 4],
}

impl LaneRank {
    /// The constants for `k` pieces, if `k` fits the lanes.
    pub fn new(k: usize) -> Option<LaneRank> {
        if k > 16 {
            return None;
        }
        let k = k as i64;
        let factorial = |n: i64| -> u64 { if n < 0 { 0 } else { (1..=n as u64).product() } };
        // A weight is only ever multiplied by digits that are 0 where it is negative.
        let clamp = |w: i64| w.max(0);
        Some(LaneRank {
            padding: std::array::from_fn(|i| if (i as i64) < k { 0 } else { 0x7f }),
            pair_weights: std::array::from_fn(|i| {
                if i % 2 == 1 {
                    1
                } else {
                    clamp(k - 1 - i as i64) as i8
                }
            }),
            quad_weights: std::array::from_fn(|i| {
                let u = (i / 2) as i64;
                if i % 2 == 1 || k - 4 - 4 * u < 0 {
                    1
                } else {
                    ((k - 2 - 4 * u) * (k - 3 - 4 * u)) as i16
                }
            }),
            // The last quad's second pair holds only zero digits where `(k-4-4u)!`
            // is not defined: its first pair's weight, `(k-2-4u)!`, weighs the quad.
            weights: std::array::from_fn(|u| {
                let u = u as i64;
                if k - 4 - 4 * u >= 0 {
                    factorial(k - 4 - 4 * u)
                } else {
                    factorial(k - 2 - 4 * u)
                }
            }),
        })
    }

    /// The Lehmer rank of the permutation in the first `k` lanes of `pieces` (the
    /// lanes past them ignored), as the scalar rank computes it.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    pub fn rank(&self, cpu: Ssse3, pieces: [u8; 16]) -> u64 {
        use std::arch::x86_64::*;
        let _ = cpu;
        // SAFETY: the token proves that the CPU has SSSE3 (and so SSE2); the
        // transmutes are between 16-byte values with every bit pattern valid.
        unsafe {
            let p: __m128i = std::mem::transmute(
                (u128::from_ne_bytes(pieces) | u128::from_ne_bytes(self.padding)).to_ne_bytes(),
            );
            let mut digits = _mm_setzero_si128();
            for (j, before) in BEFORE.iter().enumerate().skip(1) {
                // Lanes i < j where piece j is smaller: -1 each.
                let pj = _mm_shuffle_epi8(p, _mm_set1_epi8(j as i8));
                let smaller = _mm_cmpgt_epi8(p, pj);
                let before = std::mem::transmute::<[u8; 16], __m128i>(*before);
                digits = _mm_sub_epi8(digits, _mm_and_si128(smaller, before));
            }
            let pair_weights = std::mem::transmute::<[i8; 16], __m128i>(self.pair_weights);
            let quad_weights = std::mem::transmute::<[i16; 8], __m128i>(self.quad_weights);
            let pairs = _mm_maddubs_epi16(digits, pair_weights);
            let quads = _mm_madd_epi16(pairs, quad_weights);
            let f: [u32; 4] = std::mem::transmute(quads);
            f.iter()
                .zip(&self.weights)
                .map(|(&f, &w)| f as u64 * w)
                .sum()
        }
    }
}

/// `BEFORE[j]`: all ones in the lanes before `j`.
const BEFORE: [[u8; 16]; 16] = {
    let mut masks = [[0u8; 16]; 16];
    let mut j = 0;
    while j < 16 {
        let mut i = 0;
        while i < j {
            masks[j][i] = 0xff;
            i += 1;
        }
        j += 1;
    }
    masks
};

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The Lehmer rank, digit by digit.
    fn lehmer(p: &[u8]) -> u64 {
        let k = p.len();
        (0..k)
            .map(|i| {
                let digit = p[i + 1..].iter().filter(|&&q| q < p[i]).count() as u64;
                digit * (1..=(k - 1 - i) as u64).product::<u64>()
            })
            .sum()
    }

    proptest! {
        #[test]
        fn lanes_rank_as_lehmer(k in 0usize..=16, seed: u64, junk: [u8; 16]) {
            let Some(cpu) = Ssse3::detect() else { return Ok(()) };
            let mut p: Vec<u8> = (0..k as u8).collect();
            let mut s = seed;
            for i in (1..k).rev() {
                s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                p.swap(i, (s >> 33) as usize % (i + 1));
            }
            // Lanes past the orbit hold whatever a shuffle left there.
            let mut lanes = junk.map(|b| b & 15);
            lanes[..k].copy_from_slice(&p);
            let lane_rank = LaneRank::new(k).unwrap();
            prop_assert_eq!(lane_rank.rank(cpu, lanes), lehmer(&p));
        }
    }

    #[test]
    fn more_than_16_pieces_do_not_fit() {
        assert!(LaneRank::new(17).is_none());
        assert!(LaneRank::new(16).is_some());
    }
}
