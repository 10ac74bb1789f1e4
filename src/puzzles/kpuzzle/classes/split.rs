//! How a class index splits a position: a small part, enumerated (every value the
//! moves reach gets a number), and a large part (one orbit, or one orbit's twists)
//! ranked as a permutation and a twist vector. [`Split::choose`] picks the split with
//! the fewest slots; the rest of this module reads and writes the two parts.

use super::super::definition::Transformation;
use super::super::symmetry::Compact;
use super::lanes::LaneRank;
use super::{MAX_SMALL_PART, small_part_limit};

/// The most pieces of the ranked large part.
pub(super) const MAX_LARGE: usize = 20;

/// The most pieces a ranked small part ([`super::ranked`]) permutes: its ranks fit 32
/// bits.
pub(super) const MAX_RANKED: usize = 12;

/// What the large part `b` holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Large {
    /// Nothing: the small part is the whole position.
    Nothing,
    /// One orbit's pieces and orientations.
    Orbit,
    /// One orbit's orientations (its pieces are in the small part).
    Twists,
}

/// How the symmetry that takes a small part to its class's representative acts on the
/// large part, in the large orbit's own numbering: `b'[i]` takes `b[from[i]]`, its
/// piece `v` relabelled `label[v]`, its twist (negated by a mirror, `negate`) plus
/// `add[i]` (plus `label_twist[v]`).
///
/// Each act is a row of [`Acts::stride`] bytes per array: an orbit of at most 16
/// pieces has rows of 16, `from` padded with `0x80`, so that a row is an operand of a
/// sixteen-byte shuffle ([`crate::cpu::Ssse3::shuffle`]) as it stands.
#[derive(Debug, Clone, Default)]
pub(super) struct Acts {
    pub k: usize,
    pub stride: usize,
    pub from: Vec<u8>,
    pub add: Vec<u8>,
    pub label: Vec<u8>,
    pub label_twist: Vec<u8>,
    pub negate: Vec<bool>,
}

/// A padded row's bytes past the orbit in `from`: a shuffle writes 0 there.
const FROM_PAD: u8 = 0x80;

impl Acts {
    pub fn new(k: usize) -> Acts {
        Acts {
            k,
            stride: if k <= 16 { 16 } else { k },
            ..Acts::default()
        }
    }

    /// Room for `count` acts, on huge pages (the searches read them at random).
    pub fn with_capacity(k: usize, count: usize) -> Acts {
        let stride = Acts::new(k).stride;
        Acts {
            k,
            stride,
            from: crate::sys::huge_vec(count * stride),
            add: crate::sys::huge_vec(count * stride),
            label: crate::sys::huge_vec(count * stride),
            label_twist: crate::sys::huge_vec(count * stride),
            negate: crate::sys::huge_vec(count),
        }
    }

    /// The number of acts.
    pub fn len(&self) -> usize {
        self.negate.len()
    }

    /// Act `at`'s `from`, `add`, `label` and `label_twist` (the orbit's `k` places).
    #[inline(always)]
    pub fn row(&self, at: usize) -> (&[u8], &[u8], &[u8], &[u8]) {
        let range = at * self.stride..at * self.stride + self.k;
        (
            &self.from[range.clone()],
            &self.add[range.clone()],
            &self.label[range.clone()],
            &self.label_twist[range],
        )
    }

    /// Act `at`'s padded `from` and `label` rows, as shuffle operands (`stride` 16).
    #[inline(always)]
    pub fn shuffles(&self, at: usize) -> ([u8; 16], [u8; 16]) {
        (row_16(&self.from, at), row_16(&self.label, at))
    }

    /// Act `at`'s padded `from` and `add` rows, as operands (`stride` 16).
    #[inline(always)]
    pub fn twist_shuffles(&self, at: usize) -> ([u8; 16], [u8; 16]) {
        (row_16(&self.from, at), row_16(&self.add, at))
    }

    /// The `count` acts from `start`, as bytes: equal keys, equal acts.
    pub fn key(&self, start: usize, count: usize) -> Vec<u8> {
        let range = start * self.stride..(start + count) * self.stride;
        let mut key = Vec::with_capacity(4 * range.len() + count);
        key.extend_from_slice(&self.from[range.clone()]);
        key.extend_from_slice(&self.add[range.clone()]);
        key.extend_from_slice(&self.label[range.clone()]);
        key.extend_from_slice(&self.label_twist[range]);
        key.extend(self.negate[start..start + count].iter().map(|&n| n as u8));
        key
    }

    pub fn push(
        &mut self,
        from: &[u8],
        add: &[u8],
        label: &[u8],
        label_twist: &[u8],
        negate: bool,
    ) {
        let pad = self.stride - self.k;
        self.negate.push(negate);
        self.from.extend_from_slice(from);
        self.from.extend(std::iter::repeat_n(FROM_PAD, pad));
        for (row, values) in [
            (&mut self.add, add),
            (&mut self.label, label),
            (&mut self.label_twist, label_twist),
        ] {
            row.extend_from_slice(values);
            row.extend(std::iter::repeat_n(0, pad));
        }
    }
}

/// Row `at` of an array of rows of 16 bytes.
#[inline(always)]
fn row_16(bytes: &[u8], at: usize) -> [u8; 16] {
    first_16(&bytes[at * 16..])
}

/// The first 16 bytes of `bytes`, as an operand.
#[inline(always)]
fn first_16(bytes: &[u8]) -> [u8; 16] {
    bytes[..16].try_into().expect("16 bytes")
}

/// `x mod m` for `x < 2m`: one comparison, no division.
#[inline(always)]
pub(super) fn below(x: u8, m: u8) -> u8 {
    if x >= m { x - m } else { x }
}

/// 16 bytes as the first of a large part's `MAX_LARGE` places, the rest 0.
#[inline(always)]
fn widen_16(bytes: [u8; 16]) -> [u8; MAX_LARGE] {
    let mut wide = [0; MAX_LARGE];
    wide[..16].copy_from_slice(&bytes);
    wide
}

/// The high bit of every byte: in a padded `from` row it marks the padding.
const PADDING: u128 = u128::from_ne_bytes([0x80; 16]);

/// Where one compact position's entry sits in a key ([`Split::key_fields`]): a field
/// of `mask`'s width at `shift`, the piece less its orbit's first above the twist's
/// `twist_mask` bits (a mask of zero: not in the key).
#[derive(Debug, Clone, Copy)]
pub(super) struct KeyField {
    pub shift: u32,
    pub mask: u64,
    pub twist_mask: u16,
}

/// A position's large part, in the large orbit's numbering.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) struct LargePart {
    pub pieces: [u8; MAX_LARGE],
    pub twists: [u8; MAX_LARGE],
}

impl LargePart {
    /// The first 16 pieces, as a shuffle's operand.
    #[inline(always)]
    pub fn first_16(&self) -> [u8; 16] {
        first_16(&self.pieces)
    }

    /// The first 16 twists, as an operand.
    #[inline(always)]
    pub fn twists_16(&self) -> [u8; 16] {
        first_16(&self.twists)
    }

    /// The large part of at most 16 twists `twists`, without pieces.
    #[inline(always)]
    pub fn of_twists_16(twists: [u8; 16]) -> LargePart {
        LargePart {
            pieces: [0; MAX_LARGE],
            twists: widen_16(twists),
        }
    }

    /// The large part of at most 16 pieces `pieces`, without twists.
    #[inline(always)]
    pub fn of_16(pieces: [u8; 16]) -> LargePart {
        LargePart {
            pieces: widen_16(pieces),
            twists: [0; MAX_LARGE],
        }
    }
}

/// Where a class index splits the compact positions, and how the large part is ranked.
#[derive(Debug, Clone)]
pub(super) struct Split {
    /// What the large part holds.
    pub large: Large,
    /// The small part is one orbit's permutation, ranked ([`super::ranked`]), not
    /// enumerated.
    pub ranked: bool,
    /// The compact positions of the large orbit (contiguous).
    pub large_positions: Vec<usize>,
    pub large_modulus: u8,
    /// Every move keeps the large orbit's permutation even.
    pub even: bool,
    /// Every move keeps the sum of the large orbit's twists.
    pub twist_sum: bool,
    /// The number of large parts the ranking numbers.
    pub large_count: u64,
    /// The weight of each Lehmer digit of the large orbit's pieces: `(k - 1 - i)!`
    /// (the rank's mixed radices `k, k - 1, ..., 1` multiplied out, so that the
    /// digits add up independently instead of in one chain of multiplications).
    digit_weights: [u64; MAX_LARGE],
    /// The weight of each free twist digit: `m^(free - 1 - i)` (`free` the twists the
    /// rank holds, all but the last where the moves keep their sum).
    twist_weights: [u64; MAX_LARGE],
    /// Bits per compact position of the small part's key: pieces, then twists.
    piece_bits: Vec<u8>,
    twist_bits: Vec<u8>,
    /// The first compact position of each position's orbit.
    first_of: Vec<u8>,
    /// Sixteen-byte shuffles, where the CPU has them: an orbit of at most 16 pieces
    /// without twists is moved and acted on by them ([`Split::apply_act`]).
    #[cfg(target_arch = "x86_64")]
    pub shuffles: Option<crate::cpu::Ssse3>,
    /// The rank in lanes, for such an orbit ([`Split::rank_large_in`]).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    lane_rank: Option<LaneRank>,
    /// For twists alone of at most 16 places whose weights fit 16 bits: the weights,
    /// so that the rank is one multiply-add of the digits
    /// ([`crate::cpu::Ssse3::weighted_sum`]) and the twists are moved and acted on
    /// in one register.
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    twist_lanes: Option<[i16; 16]>,
}

impl Split {
    /// The split of `compact` (under `moves`, `group_order` positions, `symmetries`
    /// of them) with the fewest slots whose small part can be enumerated, and the
    /// small part's number of values; the reference orbit of a frame stays small.
    ///
    /// # Errors
    /// Why no split fits (a sentence for the caller's error).
    pub fn choose(
        compact: &Compact,
        moves: &[Transformation],
        group_order: u128,
        symmetries: u128,
        reference_orbit: Option<u8>,
    ) -> Result<(Split, usize), String> {
        let orbits = compact_orbits(compact);
        let choice = choose_split(
            compact,
            moves,
            &orbits,
            group_order,
            symmetries,
            reference_orbit,
        );
        let Some((large, large_orbit, small_size, ranked)) = choice else {
            return Err(format!(
                "{} positions, and no split of its pieces leaves a part of at most {} \
                 values to enumerate",
                crate::units::thousands_wide(group_order),
                MAX_SMALL_PART
            ));
        };
        let large_positions: Vec<usize> = (large_orbit.0..large_orbit.0 + large_orbit.1).collect();
        let k = large_positions.len();
        let modulus = compact.moduli.get(large_orbit.0).filter(|_| k > 0);
        let large_modulus = modulus.map_or(1, |&m| m.max(1));
        let (even, twist_sum, large_count) =
            large_shape(moves, large, &large_positions, large_modulus);
        let first_of: Vec<u8> = orbits
            .iter()
            .flat_map(|&(first, count)| std::iter::repeat_n(first as u8, count))
            .collect();
        let (piece_bits, twist_bits) = key_bits(compact, &orbits, large, &large_positions);
        let digit_weights = std::array::from_fn(|i| factorial(k.saturating_sub(i + 1)));
        let twist_weights = twist_weights(k, large_modulus, twist_sum);
        let split = Split {
            large,
            ranked,
            large_positions,
            large_modulus,
            even,
            twist_sum,
            large_count,
            digit_weights,
            twist_weights,
            piece_bits,
            twist_bits,
            first_of,
            #[cfg(target_arch = "x86_64")]
            shuffles: crate::cpu::Ssse3::detect(),
            lane_rank: (large == Large::Orbit && large_modulus == 1)
                .then(|| LaneRank::new(k))
                .flatten(),
            twist_lanes: (large == Large::Twists)
                .then(|| twist_lanes(k, &twist_weights))
                .flatten(),
        };
        let total_bits = split.key_bits();
        if total_bits > 64 {
            return Err(format!(
                "the enumerated part takes {total_bits} bits, over 64"
            ));
        }
        Ok((split, small_size as usize))
    }

    /// The small part of `x` as a key.
    #[inline(always)]
    pub fn key(&self, pieces: &[u8], twists: &[u8]) -> u64 {
        let mut key = 0u64;
        for i in 0..self.first_of.len() {
            let first = self.first_of[i] as usize;
            if self.piece_bits[i] > 0 {
                key = key << self.piece_bits[i] | (pieces[i] as usize - first) as u64;
            }
            if self.twist_bits[i] > 0 {
                key = key << self.twist_bits[i] | twists[i] as u64;
            }
        }
        key
    }

    /// The bits of a key.
    pub fn key_bits(&self) -> u32 {
        self.piece_bits
            .iter()
            .chain(&self.twist_bits)
            .map(|&b| b as u32)
            .sum()
    }

    /// Where each compact position's entries sit in a key: [`Split::key`] as shifts
    /// and masks, for a key put together in any order.
    pub fn key_fields(&self) -> Vec<KeyField> {
        let mut below = 0u32;
        let mut fields: Vec<KeyField> = (0..self.first_of.len())
            .rev()
            .map(|i| {
                let width = u32::from(self.piece_bits[i] + self.twist_bits[i]);
                let field = KeyField {
                    shift: below & 63,
                    mask: (1u64 << width) - 1,
                    twist_mask: (1u16 << self.twist_bits[i]) - 1,
                };
                below += width;
                field
            })
            .collect();
        fields.reverse();
        fields
    }

    /// The small part a key holds, into `pieces` and `twists` (the large part's
    /// entries as solved).
    #[inline(always)]
    pub fn unkey(&self, mut key: u64, pieces: &mut [u8], twists: &mut [u8]) {
        for i in (0..self.first_of.len()).rev() {
            let first = self.first_of[i] as usize;
            twists[i] = 0;
            pieces[i] = i as u8;
            if self.twist_bits[i] > 0 {
                twists[i] = (key & ((1 << self.twist_bits[i]) - 1)) as u8;
                key >>= self.twist_bits[i];
            }
            if self.piece_bits[i] > 0 {
                pieces[i] = (first + (key & ((1 << self.piece_bits[i]) - 1)) as usize) as u8;
                key >>= self.piece_bits[i];
            }
        }
    }

    pub fn orbit_first(&self, i: usize) -> usize {
        self.first_of[i] as usize
    }

    /// `x` with the large part's entries as solved (so that it is a transformation).
    pub fn small_of(&self, x: &Transformation) -> Transformation {
        let mut y = x.clone();
        for &i in &self.large_positions {
            match self.large {
                Large::Nothing => {}
                Large::Orbit => {
                    y.permutation[i] = i as u8;
                    y.delta[i] = 0;
                }
                Large::Twists => y.delta[i] = 0,
            }
        }
        y
    }

    /// The large part of `x`.
    pub fn large_of(&self, x: &Transformation) -> LargePart {
        let mut b = LargePart {
            pieces: [0; MAX_LARGE],
            twists: [0; MAX_LARGE],
        };
        if let Some(&first) = self.large_positions.first() {
            for (i, &p) in self.large_positions.iter().enumerate() {
                b.pieces[i] = if self.large == Large::Orbit {
                    (x.permutation[p] as usize - first) as u8
                } else {
                    0
                };
                b.twists[i] = x.delta[p];
            }
        }
        b
    }

    pub fn with_large(&self, x: &Transformation, b: &LargePart) -> Transformation {
        let mut y = x.clone();
        if let Some(&first) = self.large_positions.first() {
            for (i, &p) in self.large_positions.iter().enumerate() {
                if self.large == Large::Orbit {
                    y.permutation[p] = (first + b.pieces[i] as usize) as u8;
                }
                y.delta[p] = b.twists[i];
            }
        }
        y
    }

    /// `b` under the act `at` of `acts`.
    #[inline(always)]
    pub fn apply_act(&self, acts: &Acts, at: usize, b: &LargePart) -> LargePart {
        let k = acts.k;
        let m = self.large_modulus;
        #[cfg(target_arch = "x86_64")]
        if let Some(bytes) = self.shuffles
            && self.large == Large::Orbit
            && m == 1
            && acts.stride == 16
        {
            // `label[b[from[i]]]` as two shuffles; the padding's 0x80 in `from`
            // gives 0, marked again so that the label's shuffle gives 0 there too.
            let (from, label) = acts.shuffles(at);
            let moved = bytes.shuffle(b.first_16(), from);
            let marked = u128::from_ne_bytes(moved) | u128::from_ne_bytes(from) & PADDING;
            return LargePart::of_16(bytes.shuffle(label, marked.to_ne_bytes()));
        }
        #[cfg(target_arch = "x86_64")]
        if let Some(cpu) = self.shuffles
            && self.twist_lanes.is_some()
            && acts.stride == 16
        {
            // Twists alone in one register: moved, negated by a mirror, added to and
            // reduced (the padding's 0x80 in `from` gives 0, which stays 0).
            let (from, add) = acts.twist_shuffles(at);
            let mut twists = cpu.shuffle(b.twists_16(), from);
            if acts.negate[at] {
                twists = cpu.negate(twists, m);
            }
            return LargePart::of_twists_16(cpu.below(cpu.add(twists, add), m));
        }
        let (from, add, label, label_twist) = acts.row(at);
        let mut out = LargePart {
            pieces: [0; MAX_LARGE],
            twists: [0; MAX_LARGE],
        };
        // A mirror's act takes the twists negated. Every term is below `m`, so the
        // sums are reduced by subtraction, not by a division per piece.
        let negate = acts.negate[at];
        let twist = |t: u8| if negate && t != 0 { m - t } else { t };
        match self.large {
            Large::Nothing => {}
            Large::Orbit if m == 1 => {
                for (out, &j) in out.pieces[..k].iter_mut().zip(from) {
                    *out = label[b.pieces[j as usize] as usize];
                }
            }
            Large::Orbit => {
                for i in 0..k {
                    let j = from[i] as usize;
                    let v = b.pieces[j] as usize;
                    out.pieces[i] = label[v];
                    out.twists[i] =
                        below(below(label_twist[v] + twist(b.twists[j]) + add[i], m), m);
                }
            }
            Large::Twists => {
                for i in 0..k {
                    out.twists[i] = below(twist(b.twists[from[i] as usize]) + add[i], m);
                }
            }
        }
        out
    }

    /// Whether the large part is twists alone, moved, acted on and ranked in one
    /// register (`twist_lanes`).
    #[inline(always)]
    pub fn twists_in_lanes(&self) -> bool {
        self.twist_lanes.is_some()
    }

    /// The rank of a large part.
    #[inline(always)]
    pub fn rank_large(&self, b: &LargePart) -> u64 {
        self.rank_large_in(b, &Self::whole_order())
    }

    /// The rank of a large part read in the order of places `order`.
    #[inline(always)]
    pub fn rank_large_in(&self, b: &LargePart, order: &[u8; MAX_LARGE]) -> u64 {
        #[cfg(target_arch = "x86_64")]
        if let (Some(cpu), Some(lanes)) = (self.shuffles, &self.lane_rank) {
            let order: [u8; 16] = order[..16].try_into().expect("16 of MAX_LARGE places");
            let rank = lanes.rank(cpu, cpu.shuffle(b.first_16(), order));
            return if self.even { rank >> 1 } else { rank };
        }
        #[cfg(target_arch = "x86_64")]
        if let (Some(cpu), Some(weights)) = (self.shuffles, self.twist_lanes) {
            let order: [u8; 16] = order[..16].try_into().expect("16 of MAX_LARGE places");
            return cpu.weighted_sum(cpu.shuffle(b.twists_16(), order), weights) as u64;
        }
        let k = self.large_positions.len();
        let m = self.large_modulus as u64;
        let mut rank = 0u64;
        if self.large == Large::Orbit {
            // Lehmer digits: the values after each one that are smaller, which is the
            // value less the smaller ones before it.
            let mut seen = 0u32;
            let mut digits = [0u64; MAX_LARGE];
            for (digit, &place) in digits.iter_mut().zip(&order[..k]) {
                let v = b.pieces[place as usize] as u32;
                *digit = (v - (seen & ((1u32 << v) - 1)).count_ones()) as u64;
                seen |= 1 << v;
            }
            for (digit, weight) in digits[..k].iter().zip(&self.digit_weights) {
                rank += digit * weight;
            }
            if self.even {
                rank >>= 1;
            }
        }
        if m > 1 {
            // The twists' digits weighed independently, not in one chain.
            let free = if self.twist_sum { k - 1 } else { k };
            let mut twists = 0u64;
            for (&place, &weight) in order[..free].iter().zip(&self.twist_weights) {
                twists += b.twists[place as usize] as u64 * weight;
            }
            if free > 0 {
                rank = rank * self.twist_weights[0] * m + twists;
            }
        }
        rank
    }

    /// The large part of rank `rank`.
    #[inline(always)]
    pub fn unrank_large(&self, rank: u64) -> LargePart {
        self.unrank_large_in(rank, &Self::whole_order())
    }

    /// The large part of rank `rank` read in the order of places `order`.
    #[inline(always)]
    pub fn unrank_large_in(&self, mut rank: u64, order: &[u8; MAX_LARGE]) -> LargePart {
        let k = self.large_positions.len();
        let m = self.large_modulus as u64;
        let mut b = LargePart {
            pieces: [0; MAX_LARGE],
            twists: [0; MAX_LARGE],
        };
        if m > 1 && k > 0 {
            let free = if self.twist_sum { k - 1 } else { k };
            let mut sum = 0u64;
            // Digits by a constant divisor where the modulus is a cube's (a
            // multiplication each, not a division).
            let mut digits = |m: u64| {
                for i in (0..free).rev() {
                    b.twists[order[i] as usize] = (rank % m) as u8;
                    sum += rank % m;
                    rank /= m;
                }
            };
            match m {
                2 => digits(2),
                3 => digits(3),
                _ => digits(m),
            }
            if self.twist_sum {
                b.twists[order[k - 1] as usize] = ((m - sum % m) % m) as u8;
            }
        }
        if self.large == Large::Orbit {
            // An even permutation's rank is half its Lehmer rank: the even one of the
            // pair that differ in their last two places (the last digit but one, of
            // weight 1, is 0 in the doubled rank).
            let full = if self.even { rank << 1 } else { rank };
            let mut digits = [0u8; MAX_LARGE];
            lehmer_digits(full, k, &mut digits);
            place_pieces(&digits[..k], order, &mut b.pieces);
            if self.even && k >= 2 && !pieces_are_even(&b.pieces[..k]) {
                b.pieces.swap(order[k - 2] as usize, order[k - 1] as usize);
            }
        }
        b
    }

    /// The large part's moves: `from` and `add` per move, like an act (empty acts
    /// where there is no large part).
    pub fn move_table(&self, moves: &[Transformation]) -> Acts {
        let k = self.large_positions.len();
        let mut table = Acts::new(k);
        if k == 0 {
            return table;
        }
        let first = self.large_positions[0];
        let m = self.large_modulus;
        for t in moves {
            let from: Vec<u8> = self
                .large_positions
                .iter()
                .map(|&p| (t.permutation[p] as usize - first) as u8)
                .collect();
            let add: Vec<u8> = self
                .large_positions
                .iter()
                .map(|&p| t.delta[p] % m)
                .collect();
            table.push(&from, &add, &vec![0; k], &vec![0; k], false);
        }
        table
    }

    /// The identity order of places: a large part ranked whole.
    pub fn whole_order() -> [u8; MAX_LARGE] {
        std::array::from_fn(|i| i as u8)
    }
}

/// The split of a class index with the fewest slots, about `|b| · |s| / |group|`,
/// among those whose small part has at most [`MAX_SMALL_PART`] values: everything
/// small; else one orbit large; else one orbit's twists large. The held piece's orbit
/// stays small. Returns the large part, its orbit `(first, count)` and the small
/// part's number of values.
fn choose_split(
    compact: &Compact,
    moves: &[Transformation],
    orbits: &[(usize, usize)],
    group_order: u128,
    symmetries_count: u128,
    reference_orbit: Option<u8>,
) -> Option<(Large, (usize, usize), u128, bool)> {
    // Choose the split: everything small; else one orbit large; else one orbit's
    // twists large.
    let order_without = |large: Large, orbit: (usize, usize)| -> u128 {
        let moduli: Vec<u8> = compact
            .moduli
            .iter()
            .enumerate()
            .map(|(i, &m)| {
                if (orbit.0..orbit.0 + orbit.1).contains(&i) && large == Large::Twists {
                    1
                } else {
                    m
                }
            })
            .collect();
        let kept: Vec<Transformation> = moves
            .iter()
            .map(|t| {
                let mut t = t.clone();
                if large == Large::Orbit {
                    for i in orbit.0..orbit.0 + orbit.1 {
                        t.permutation[i] = i as u8;
                        t.delta[i] = 0;
                    }
                } else {
                    for i in orbit.0..orbit.0 + orbit.1 {
                        t.delta[i] = 0;
                    }
                }
                t
            })
            .collect();
        let refs: Vec<&Transformation> = kept.iter().collect();
        super::super::group::order(&refs, &moduli)
    };
    // Candidates: everything small; one orbit large; one orbit's twists large.
    // Each is judged by the slots it would take, about |b| · |s| / |group| (at
    // least |b|), among those whose small part can be enumerated.
    let large_size = |large: Large, orbit: (usize, usize)| -> u128 {
        let k = orbit.1;
        let m = compact.moduli[orbit.0].max(1) as u128;
        let pieces = if large == Large::Orbit {
            (1..=k as u128).product::<u128>()
        } else {
            1
        };
        pieces * m.pow(k as u32)
    };
    // (slots, small values, large part, its orbit, ranked)
    type Candidate = (u128, u128, Large, (usize, usize), bool);
    let mut candidates: Vec<Candidate> = Vec::new();
    if group_order <= small_part_limit() {
        candidates.push((
            group_order.div_ceil(symmetries_count),
            group_order,
            Large::Nothing,
            (0, 0),
            false,
        ));
    }
    for large in [Large::Orbit, Large::Twists] {
        for &orbit in orbits {
            if Some(compact.orbit[orbit.0]) == reference_orbit
                || orbit.1 > MAX_LARGE
                || (large == Large::Twists && compact.moduli[orbit.0] < 2)
            {
                continue;
            }
            let small = order_without(large, orbit);
            let slots = large_size(large, orbit) * small.div_ceil(symmetries_count).max(1);
            if small <= small_part_limit() {
                candidates.push((slots, small, large, orbit, false));
            } else if large == Large::Twists
                && orbits.len() == 1
                && reference_orbit.is_none()
                && ranks_every_permutation(
                    (orbit.1, compact.moduli[orbit.0].max(1) as u128),
                    small,
                    group_order,
                )
            {
                // Too many permutations to enumerate, but all of them: ranked.
                candidates.push((slots, small, large, orbit, true));
            }
        }
    }
    candidates
        .into_iter()
        .min_by_key(|&(slots, small, _, _, _)| (slots, small))
        .map(|(_, small, large, orbit, ranked)| (large, orbit, small, ranked))
}

/// Whether a puzzle of one orbit of `k` pieces twisting modulo `m`, `group_order`
/// positions of which the moves make `permutations` permutations, can rank its
/// permutations as its small part ([`super::ranked`]): every permutation or every even
/// one occurs, each with every twist vector (or every one of a twist sum).
fn ranks_every_permutation((k, m): (usize, u128), permutations: u128, group_order: u128) -> bool {
    let all = (1..=k as u128).product::<u128>();
    let twists = m.pow(k as u32);
    k <= MAX_RANKED
        && (permutations == all || 2 * permutations == all)
        && (permutations * twists == group_order || permutations * twists == group_order * m)
}

/// Whether every move keeps the large orbit's permutation even and its twists'
/// sum, and the number of large parts the ranking numbers.
fn large_shape(
    moves: &[Transformation],
    large: Large,
    large_positions: &[usize],
    large_modulus: u8,
) -> (bool, bool, u64) {
    let k = large_positions.len();
    let first = large_positions.first().copied().unwrap_or(0) as u8;
    let even = k > 0
        && moves.iter().all(|m| {
            let local: Vec<u8> = large_positions
                .iter()
                .map(|&i| m.permutation[i] - first)
                .collect();
            permutation_is_even(&local)
        });
    let twist_sum = k > 0
        && large_modulus > 1
        && moves.iter().all(|m| {
            large_positions
                .iter()
                .map(|&i| m.delta[i] as u32)
                .sum::<u32>()
                % large_modulus as u32
                == 0
        });
    let count = match large {
        Large::Nothing => 1,
        Large::Orbit | Large::Twists => {
            let pieces = if large == Large::Orbit {
                factorial(k) / if even { 2 } else { 1 }
            } else {
                1
            };
            let free = if twist_sum { k - 1 } else { k };
            pieces * (large_modulus as u64).pow(free as u32)
        }
    };
    (even, twist_sum, count)
}

/// Bits per compact position of the small part's key: its pieces, its twists.
fn key_bits(
    compact: &Compact,
    orbits: &[(usize, usize)],
    large: Large,
    large_positions: &[usize],
) -> (Vec<u8>, Vec<u8>) {
    let n = compact.len();
    let mut piece_bits = vec![0u8; n];
    let mut twist_bits = vec![0u8; n];
    for &(first, count) in orbits {
        for i in first..first + count {
            let large_here = large_positions.contains(&i);
            if !(large_here && large == Large::Orbit) {
                piece_bits[i] = bits_for(count);
            }
            if !large_here || large == Large::Nothing {
                twist_bits[i] = bits_for(compact.moduli[i].max(1) as usize);
            }
        }
    }
    (piece_bits, twist_bits)
}

/// The orbits of the compact positions, each `(first, count)`.
fn compact_orbits(compact: &Compact) -> Vec<(usize, usize)> {
    let mut orbits: Vec<(usize, usize)> = Vec::new();
    for i in 0..compact.len() {
        match orbits.last_mut() {
            Some((first, count)) if compact.orbit[*first] == compact.orbit[i] => *count += 1,
            _ => orbits.push((i, 1)),
        }
    }
    orbits
}

/// The weights of the free twist digits of `k` places twisting modulo `m` (all but the
/// last if the moves keep the sum): `m^(free - 1 - i)` for digit `i`.
fn twist_weights(k: usize, m: u8, twist_sum: bool) -> [u64; MAX_LARGE] {
    let free = if twist_sum { k.saturating_sub(1) } else { k };
    std::array::from_fn(|i| {
        if i < free {
            (m.max(1) as u64).pow((free - 1 - i) as u32)
        } else {
            0
        }
    })
}

/// The twist weights as 16-bit lanes, if there are at most 16 places and each weight
/// fits.
fn twist_lanes(k: usize, weights: &[u64; MAX_LARGE]) -> Option<[i16; 16]> {
    if k > 16 || weights.iter().any(|&w| w > i16::MAX as u64) {
        return None;
    }
    Some(std::array::from_fn(|i| weights[i] as i16))
}

fn bits_for(values: usize) -> u8 {
    (usize::BITS - values.saturating_sub(1).leading_zeros()) as u8
}

fn factorial(n: usize) -> u64 {
    (1..=n as u64).product()
}

/// The Lehmer digits of `rank` over `k` places (radices `k, k - 1, ..., 1`), into
/// `digits`; below `k = 13` the rank fits 32 bits and each division is a
/// multiplication by a reciprocal (exact for 32-bit numerators: Lemire, Kaser and
/// Kurz, "Faster remainder by direct computation", 2019).
#[inline(always)]
pub(super) fn lehmer_digits(rank: u64, k: usize, digits: &mut [u8; MAX_LARGE]) {
    // The last digit, of radix 1, is 0.
    let Some(last) = k.checked_sub(1) else {
        return;
    };
    digits[last] = 0;
    if k <= 12 {
        let mut r = rank as u32;
        for i in (0..last).rev() {
            let radix = (k - i) as u32;
            let reciprocal = u64::MAX / radix as u64 + 1;
            let q = ((reciprocal as u128 * r as u128) >> 64) as u32;
            digits[i] = (r - q * radix) as u8;
            r = q;
        }
    } else {
        let mut r = rank;
        for i in (0..last).rev() {
            let radix = (k - i) as u64;
            digits[i] = (r % radix) as u8;
            r /= radix;
        }
    }
}

/// The pieces of Lehmer digits `digits`, at the places `order`: each place takes the
/// digit-th smallest piece not placed yet. The pieces left are kept as a list of
/// 4-bit values in one word (up to 16 places), else found by counting.
#[inline(always)]
pub(super) fn place_pieces(digits: &[u8], order: &[u8; MAX_LARGE], pieces: &mut [u8; MAX_LARGE]) {
    let k = digits.len();
    if k <= 16 {
        let mut left: u64 = 0xfedc_ba98_7654_3210;
        for (&d, &place) in digits.iter().zip(order) {
            let shift = 4 * d as u32;
            pieces[place as usize] = (left >> shift & 15) as u8;
            let below = (1u64 << shift) - 1;
            left = (left & below) | (left >> 4 & !below);
        }
    } else {
        let mut used = 0u32;
        for (&d, &place) in digits.iter().zip(order) {
            let v = nth_unused(used, d as u32);
            used |= 1 << v;
            pieces[place as usize] = v;
        }
    }
}

/// The `n`-th smallest value (from 0) whose bit is clear in `used`.
pub(super) fn nth_unused(used: u32, n: u32) -> u8 {
    let mut left = n;
    let mut v = 0u8;
    loop {
        if used >> v & 1 == 0 {
            if left == 0 {
                return v;
            }
            left -= 1;
        }
        v += 1;
    }
}

/// Whether the pieces `p` (a permutation of `0..p.len()`, at most 32) are an even
/// permutation: the parity of its inversions, counted without a table.
#[inline(always)]
pub(super) fn pieces_are_even(p: &[u8]) -> bool {
    let mut seen = 0u32;
    let mut inversions = 0u32;
    for &v in p {
        // The values before v that are larger.
        inversions += (seen >> v).count_ones();
        seen |= 1 << v;
    }
    inversions.is_multiple_of(2)
}

pub(super) fn permutation_is_even(p: &[u8]) -> bool {
    let mut seen = [false; 256];
    let mut transpositions = 0;
    for start in 0..p.len() {
        if seen[start] {
            continue;
        }
        let mut i = start;
        let mut length = 0;
        while !seen[i] {
            seen[i] = true;
            i = p[i] as usize;
            length += 1;
        }
        transpositions += length - 1;
    }
    transpositions % 2 == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A split whose large part is one orbit of `k` places (`modulus` twists each).
    fn orbit_split(k: usize, modulus: u8, even: bool, twist_sum: bool) -> Split {
        let free = if twist_sum { k - 1 } else { k };
        Split {
            large: Large::Orbit,
            ranked: false,
            large_positions: (0..k).collect(),
            large_modulus: modulus,
            even,
            twist_sum: twist_sum && modulus > 1,
            large_count: factorial(k) / if even { 2 } else { 1 }
                * (modulus as u64).pow(free as u32),
            digit_weights: std::array::from_fn(|i| factorial(k.saturating_sub(i + 1))),
            twist_weights: twist_weights(k, modulus, twist_sum && modulus > 1),
            piece_bits: Vec::new(),
            twist_bits: Vec::new(),
            first_of: Vec::new(),
            #[cfg(target_arch = "x86_64")]
            shuffles: crate::cpu::Ssse3::detect(),
            lane_rank: (modulus == 1).then(|| LaneRank::new(k)).flatten(),
            twist_lanes: None,
        }
    }

    /// The rank as the Horner form computes it: `rank * (k - i) + digit`, place by
    /// place.
    fn horner_rank(split: &Split, b: &LargePart, order: &[u8; MAX_LARGE]) -> u64 {
        let k = split.large_positions.len();
        let mut rank = 0u64;
        let mut seen = 0u32;
        for (i, &place) in order[..k].iter().enumerate() {
            let v = b.pieces[place as usize] as u32;
            let smaller = (0..v).filter(|&w| seen >> w & 1 == 0).count() as u64;
            seen |= 1 << v;
            rank = rank * (k - i) as u64 + smaller;
        }
        if split.even {
            rank >>= 1;
        }
        let free = if split.twist_sum { k - 1 } else { k };
        for &place in &order[..free] {
            rank = rank * split.large_modulus as u64 + b.twists[place as usize] as u64;
        }
        rank
    }

    /// A permutation of `0..k` from a seed, and an order of places.
    fn shuffled(k: usize, mut seed: u64) -> [u8; MAX_LARGE] {
        let mut p = Split::whole_order();
        for i in (1..k).rev() {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            p.swap(i, (seed >> 33) as usize % (i + 1));
        }
        p
    }

    proptest! {
        /// Ranks below the part count, the Horner form's rank, and unrank inverts
        /// them: small and large orbits (the 32-bit and 64-bit digit paths, the
        /// 4-bit list and the counting placement), even or not, with twists.
        #[test]
        fn large_parts_rank_and_unrank_as_bijections(
            k in 2usize..=MAX_LARGE,
            modulus in 1u8..=3,
            even: bool,
            twist_sum: bool,
            seed: u64,
            order_seed: u64,
        ) {
            let free = if twist_sum && modulus > 1 { k - 1 } else { k };
            let count = factorial(k) as u128 * (modulus as u128).pow(free as u32);
            prop_assume!(count < 1 << 63, "the ranks fit 64 bits");
            let split = orbit_split(k, modulus, even, twist_sum);
            let order = shuffled(k, order_seed);
            let mut b = LargePart {
                pieces: shuffled(k, seed),
                twists: [0; MAX_LARGE],
            };
            b.pieces[k..].fill(0);
            if even && !permutation_is_even(&b.pieces[..k]) {
                b.pieces.swap(0, 1);
            }
            if modulus > 1 {
                let mut sum = 0;
                for i in 0..k {
                    b.twists[i] = (seed >> (i % 32) & 0xff) as u8 % modulus;
                    sum += b.twists[i] as u32;
                }
                if split.twist_sum {
                    let last = order[k - 1] as usize;
                    sum -= b.twists[last] as u32;
                    b.twists[last] = ((modulus as u32 - sum % modulus as u32) % modulus as u32) as u8;
                }
            }
            let rank = split.rank_large_in(&b, &order);
            prop_assert!(rank < split.large_count);
            prop_assert_eq!(rank, horner_rank(&split, &b, &order));
            prop_assert_eq!(split.unrank_large_in(rank, &order), b);
        }

        /// The inversion count's parity is the parity of the cycles.
        #[test]
        fn pieces_are_even_as_their_cycles_say(k in 1usize..=MAX_LARGE, seed: u64) {
            let p = shuffled(k, seed);
            prop_assert_eq!(pieces_are_even(&p[..k]), permutation_is_even(&p[..k]));
        }
    }

    /// Every rank of a small orbit, in a shuffled order, unranks to a distinct part
    /// that ranks back.
    #[test]
    fn every_rank_of_a_small_even_orbit_round_trips() {
        for (k, even) in [(5, true), (6, false), (7, true)] {
            let split = orbit_split(k, 1, even, false);
            let order = shuffled(k, 7);
            let mut seen = std::collections::HashSet::new();
            for rank in 0..split.large_count {
                let b = split.unrank_large_in(rank, &order);
                assert!(!even || permutation_is_even(&b.pieces[..k]));
                assert_eq!(split.rank_large_in(&b, &order), rank);
                assert!(seen.insert(b.pieces));
            }
        }
    }
}
