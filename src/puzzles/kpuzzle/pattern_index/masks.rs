//! A dense index's one part of two kinds of pieces (the 4x4x4's centres: the U and D
//! colour and the other) as a bit mask of the places the ranked kind holds: each
//! symmetry and move permutes the bits (and a symmetry that exchanges the two kinds
//! complements them), by byte tables; the rank is the mask's colex rank, by byte tables
//! too, and the values in rank order are the masks in numeric order (Gosper's
//! successor). Set up only where it agrees with the plain ranking on the values and
//! maps it is checked on.

use super::super::definition::Pattern;
use super::super::ranking::Layout;

/// The most places a mask holds.
const MAX_PLACES: usize = 32;

/// Values and patterns checked against the plain ranking when the masks are set up.
const CHECKS: u64 = 64;

/// Bit masks of one part's two kinds, with the maps' byte tables.
#[derive(Debug, Clone)]
pub(super) struct Masks {
    /// The part's positions, in the ranking's order (bit `i` is `places[i]`).
    places: Vec<u8>,
    /// The label of the ranked kind (its places are the mask) and of the other.
    ranked: u8,
    other: u8,
    /// Pieces of the ranked kind.
    count: u32,
    bytes: usize,
    /// Per map and byte of a mask, the image of each byte value:
    /// `images[(map * bytes + byte) * 256 + value]`; `flips[map]` the image of no bit.
    images: Vec<u32>,
    flips: Vec<u32>,
    /// `ranks[(byte * (MAX_PLACES + 1) + below) * 256 + value]`: the colex terms of a
    /// byte's bits with `below` bits of the mask under it.
    ranks: Vec<u32>,
}

impl Masks {
    /// The masks of part `part` (its `places`, `size` values) of `layout`, solved at
    /// `goal`, under `maps` maps (each writes its image of a pattern over another), or
    /// `None` where the part is not two kinds of untwisted pieces that the masks rank
    /// as the layout does.
    pub fn new(
        layout: &Layout,
        (part, places, size): (usize, &[u8], u64),
        goal: &Pattern,
        maps: usize,
        map: impl Fn(usize, &Pattern, &mut Pattern),
    ) -> Option<Masks> {
        if places.len() > MAX_PLACES || places.iter().any(|&p| goal.orientation[p as usize] != 0) {
            return None;
        }
        let mut first = goal.clone();
        layout.unrank_digit(part, 0, &mut first);
        let ranked = first.pieces[places[0] as usize];
        let count = places
            .iter()
            .filter(|&&p| first.pieces[p as usize] == ranked)
            .count() as u32;
        let other = *places
            .iter()
            .map(|&p| &first.pieces[p as usize])
            .find(|&&l| l != ranked)?;
        if places
            .iter()
            .any(|&p| ![ranked, other].contains(&first.pieces[p as usize]))
            || binomial(places.len() as u32, count) != size
        {
            return None;
        }
        let bytes = places.len().div_ceil(8);
        let mut masks = Masks {
            places: places.to_vec(),
            ranked,
            other,
            count,
            bytes,
            images: vec![0; maps * bytes * 256],
            flips: vec![0; maps],
            ranks: Vec::new(),
        };
        masks.ranks = masks.rank_table();
        // Each map's image of one bit (and of none), probed on patterns whose counts
        // need not be a position's: a map moves places and relabels kinds.
        let (mut probe, mut image) = (goal.clone(), goal.clone());
        for m in 0..maps {
            masks.write(0, &mut probe);
            map(m, &probe, &mut image);
            let flip = masks.mask_of(&image)?;
            masks.flips[m] = flip;
            let mut bit_images = [0u32; MAX_PLACES];
            for (i, slot) in bit_images.iter_mut().enumerate().take(places.len()) {
                masks.write(1 << i, &mut probe);
                map(m, &probe, &mut image);
                *slot = masks.mask_of(&image)? ^ flip;
            }
            for byte in 0..bytes {
                let table = &mut masks.images[(m * bytes + byte) * 256..][..256];
                for (value, out) in table.iter_mut().enumerate() {
                    *out = (0..8)
                        .filter(|b| value >> b & 1 == 1)
                        .map(|b| bit_images[byte * 8 + b])
                        .fold(0, |a, x| a | x);
                }
            }
        }
        // The masks rank values as the layout does, and map them as the maps do.
        let mut pattern = goal.clone();
        for v in (0..CHECKS).map(|i| i * size / CHECKS).chain([size - 1]) {
            layout.unrank_digit(part, v, &mut pattern);
            let mask = masks.mask_of(&pattern)?;
            if masks.rank(mask) != v {
                return None;
            }
            for m in (0..maps).step_by(maps.div_ceil(8).max(1)) {
                map(m, &pattern, &mut image);
                if masks.mask_of(&image) != Some(masks.image(m, mask)) {
                    return None;
                }
            }
        }
        Some(masks)
    }

    /// The mask of the least value.
    pub fn first(&self) -> u32 {
        if self.count == 0 {
            0
        } else {
            u32::MAX >> (32 - self.count)
        }
    }

    /// The mask of the next value (the next mask with as many bits: Gosper's hack).
    #[inline]
    pub fn next(mask: u32) -> u32 {
        if mask == 0 {
            return 0;
        }
        let low = mask & mask.wrapping_neg();
        let ripple = mask.wrapping_add(low);
        (((ripple ^ mask) >> 2) / low) | ripple
    }

    /// `mask` after map `m`.
    #[inline]
    pub fn image(&self, m: usize, mask: u32) -> u32 {
        let tables = &self.images[m * self.bytes * 256..];
        let mut out = self.flips[m];
        for byte in 0..self.bytes {
            out ^= tables[byte * 256 + (mask >> (8 * byte) & 0xff) as usize];
        }
        out
    }

    /// The value (colex rank) of `mask`.
    #[inline]
    pub fn rank(&self, mask: u32) -> u64 {
        let mut rank = 0u64;
        let mut below = 0usize;
        for byte in 0..self.bytes {
            let value = (mask >> (8 * byte) & 0xff) as usize;
            rank += u64::from(self.ranks[(byte * (MAX_PLACES + 1) + below) * 256 + value]);
            below += value.count_ones() as usize;
        }
        rank
    }

    /// The colex terms: the `j`-th bit of the mask (from 1), at place `p`, adds
    /// `C(p, j)`.
    fn rank_table(&self) -> Vec<u32> {
        let mut table = vec![0u32; self.bytes * (MAX_PLACES + 1) * 256];
        for byte in 0..self.bytes {
            for below in 0..=MAX_PLACES {
                for value in 0..256usize {
                    let mut j = below as u32;
                    let mut term = 0u64;
                    for b in 0..8 {
                        if value >> b & 1 == 1 {
                            j += 1;
                            term += binomial((byte * 8 + b) as u32, j);
                        }
                    }
                    table[(byte * (MAX_PLACES + 1) + below) * 256 + value] =
                        u32::try_from(term).unwrap_or(u32::MAX);
                }
            }
        }
        table
    }

    /// The mask of `pattern` (`None` if a place holds neither kind).
    fn mask_of(&self, pattern: &Pattern) -> Option<u32> {
        let mut mask = 0u32;
        for (i, &p) in self.places.iter().enumerate() {
            match pattern.pieces[p as usize] {
                l if l == self.ranked => mask |= 1 << i,
                l if l == self.other => {}
                _ => return None,
            }
        }
        Some(mask)
    }

    /// Writes `mask` over the part's places of `pattern`.
    fn write(&self, mask: u32, pattern: &mut Pattern) {
        for (i, &p) in self.places.iter().enumerate() {
            pattern.pieces[p as usize] = if mask >> i & 1 == 1 {
                self.ranked
            } else {
                self.other
            };
        }
    }
}

/// `C(n, k)` (0 where `k > n`), exact for the places a mask holds.
fn binomial(n: u32, k: u32) -> u64 {
    if k > n {
        return 0;
    }
    let k = k.min(n - k);
    (0..k).fold(1u64, |c, i| c * u64::from(n - i) / u64::from(i + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gosper_walks_the_colex_order() {
        let masks = Masks {
            places: (0..10).collect(),
            ranked: 0,
            other: 1,
            count: 4,
            bytes: 2,
            images: Vec::new(),
            flips: Vec::new(),
            ranks: Vec::new(),
        };
        let masks = Masks {
            ranks: masks.rank_table(),
            ..masks
        };
        let mut mask = masks.first();
        for v in 0..binomial(10, 4) {
            assert_eq!(mask.count_ones(), 4);
            assert_eq!(masks.rank(mask), v);
            mask = Masks::next(mask);
        }
    }
}
