//! The minimal perfect hash of a KPuzzle's states under one move set.
//!
//! Positions that no move touches are left out. The others fall into *parts*: the
//! places one piece can travel between (a twisty puzzle's orbit, or a piece that only
//! turns in place). A part of distinct pieces ranks the permutation of its pieces
//! (Lehmer code) times their orientations read position by position in mixed radix;
//! where every move keeps the orientation sum of the part, the last orientation is
//! implied, and where every move's permutation parity on the part is fixed by the
//! parities of earlier parts (even on its own, or equal to another part's, as the
//! 3x3x3's corners and edges), only that parity is numbered (`n!/2`). A part with
//! identical pieces (and a projection's untracked pieces, which are identical blanks)
//! ranks which places each kind of piece takes, kind by kind as combinations, times
//! the orientations of the distinct pieces in position order. The index is the parts'
//! ranks in mixed radix, the first part most significant.

use super::definition::{Pattern, Transformation};
use crate::rank::kinds::{self, PieceKind};
use crate::rank::partial::Placements;
use crate::rank::{binomial, permutation};
use rayon::prelude::*;

/// The pieces and orientations of a state, borrowed (a [`Pattern`], or a search node).
#[derive(Debug, Clone, Copy)]
pub struct View<'a> {
    /// The piece at each position.
    pub pieces: &'a [u8],
    /// Its orientation.
    pub orientation: &'a [u8],
}

impl Pattern {
    /// The pattern borrowed as a [`View`].
    #[must_use]
    pub fn view(&self) -> View<'_> {
        View {
            pieces: &self.pieces,
            orientation: &self.orientation,
        }
    }
}

/// A piece number no definition uses: the untracked pieces of a projection.
pub const BLANK: u8 = u8::MAX;

/// The most places of one part (ranking masks are 32 bits, combinations fewer).
pub const MAX_PART_PLACES: usize = 31;

/// The parity rule of a part of distinct pieces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Parity {
    /// Either parity.
    Free,
    /// The XOR of the parities of the parts in the mask (0: always even).
    Fixed(u64),
}

#[derive(Debug, Clone)]
enum Kind {
    /// Distinct pieces: `local[label]` numbers them `0..n` (`u8::MAX`: not here).
    Distinct {
        local: Box<[u8; 256]>,
        labels: Vec<u8>,
        parity: Parity,
        /// The orientation sum every state keeps, if the moves keep it.
        sum: Option<u8>,
    },
    /// A few distinct pieces among blanks (a projection's): where each stands, as a
    /// partial permutation (`item[label]` numbers them, `u8::MAX` for blanks), and
    /// their orientations in item order.
    Partial {
        item: Box<[u8; 256]>,
        labels: Vec<u8>,
        placements: Box<Placements>,
    },
    /// Kinds of identical pieces: `class[label]` (`u8::MAX`: not here), `counts` per
    /// kind, and which kinds are one oriented piece.
    Classes {
        class: Box<[u8; 256]>,
        labels: Vec<u8>,
        /// Every kind but the last, which takes the places left.
        ranked: Vec<PieceKind>,
        oriented: Vec<bool>,
        /// The orientation sum every state keeps, if the moves keep it and every
        /// piece shows its twist (then the last place's twist is implied).
        sum: Option<u8>,
    },
}

/// One part: places that exchange pieces.
#[derive(Debug, Clone)]
struct Part {
    places: Vec<u8>,
    modulus: u8,
    kind: Kind,
    /// Arrangements of the pieces.
    arrangements: u64,
    /// Orientation digits ranked.
    digits: u32,
    /// `modulus ^ digits`.
    twists: u64,
}

impl Part {
    fn size(&self) -> u64 {
        self.arrangements * self.twists
    }
}

/// Why a move set's states cannot be ranked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RankingError {
    /// A part is too large for the ranking functions.
    #[error("{0}")]
    TooLarge(String),
}

/// The ranking of one move set's states.
#[derive(Debug, Clone)]
pub struct Layout {
    parts: Vec<Part>,
    /// The number of indices, if it fits in 64 bits.
    count: u128,
    /// Positions no move touches.
    fixed: Vec<u8>,
}

impl Layout {
    /// The ranking of the states `moves` reach from `goal` (orientations mod `moduli`).
    ///
    /// # Errors
    /// [`RankingError`] if the pieces cannot be ranked in 64 bits.
    pub fn new(
        goal: &Pattern,
        moves: &[&Transformation],
        moduli: &[u8],
        orbit_of: impl Fn(usize) -> String,
    ) -> Result<Layout, RankingError> {
        let positions = goal.pieces.len();
        let moved: Vec<bool> = (0..positions)
            .map(|p| moves.iter().any(|t| t.moves(p)))
            .collect();
        let mut parts: Vec<Part> = Vec::new();
        for places in components(moves, &moved) {
            parts.push(Part::new(places, goal, moves, moduli, &orbit_of)?);
        }
        set_parity_rules(&mut parts, moves);

        let count = parts
            .iter()
            .try_fold(1u128, |acc, part| acc.checked_mul(part.size() as u128))
            .ok_or_else(|| RankingError::TooLarge("more than 2^128 indices".into()))?;
        let fixed = (0..positions)
            .filter(|&p| !moved[p])
            .map(|p| p as u8)
            .collect();
        Ok(Layout {
            parts,
            count,
            fixed,
        })
    }

    /// The number of indices (possibly beyond 64 bits).
    #[must_use]
    pub fn count(&self) -> u128 {
        self.count
    }

    /// The number of indices, if a 64-bit index holds them.
    #[must_use]
    pub fn index_count(&self) -> Option<u64> {
        u64::try_from(self.count).ok()
    }

    /// Positions that no move touches.
    #[must_use]
    pub fn fixed(&self) -> &[u8] {
        &self.fixed
    }

    /// Why `pattern` is not one of the ranked states (of a puzzle solved at `goal`),
    /// if it is not.
    ///
    /// # Errors
    /// A message naming the first index at which rank and unrank disagree.
    pub fn check(&self, pattern: &Pattern, goal: &Pattern) -> Result<(), String> {
        for &p in &self.fixed {
            let p = p as usize;
            if pattern.pieces[p] != goal.pieces[p] || pattern.orientation[p] != goal.orientation[p]
            {
                return Err(format!("position {p} is one the moves never change"));
            }
        }
        let mut parities = 0u64;
        for (j, part) in self.parts.iter().enumerate() {
            let mut here: Vec<u8> = part
                .places
                .iter()
                .map(|&p| pattern.pieces[p as usize])
                .collect();
            let mut want: Vec<u8> = part
                .places
                .iter()
                .map(|&p| goal.pieces[p as usize])
                .collect();
            here.sort_unstable();
            want.sort_unstable();
            if here != want {
                return Err(format!(
                    "the pieces at positions {:?} cannot get there from the goal",
                    part.places
                ));
            }
            if let Kind::Distinct {
                local, parity, sum, ..
            } = &part.kind
            {
                let items = self.items(part, local, pattern.view());
                let p = permutation::parity(&items[..part.places.len()]) as u64;
                if let Parity::Fixed(mask) = parity
                    && p != (parities & mask).count_ones() as u64 & 1
                {
                    return Err(format!(
                        "the permutation of positions {:?} has the wrong parity",
                        part.places
                    ));
                }
                parities |= p << j;
                if let Some(sum) = sum {
                    let total: u32 = part
                        .places
                        .iter()
                        .map(|&q| pattern.orientation[q as usize] as u32)
                        .sum();
                    if total % part.modulus as u32 != *sum as u32 {
                        return Err(format!(
                            "the orientations at positions {:?} add up wrong (a twisted piece)",
                            part.places
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    fn items(&self, part: &Part, local: &[u8; 256], pattern: View<'_>) -> [u8; 32] {
        let mut items = [0u8; 32];
        for (slot, &p) in items.iter_mut().zip(&part.places) {
            *slot = local[pattern.pieces[p as usize] as usize];
        }
        items
    }

    /// The index of a ranked state (one [`Layout::check`] accepts).
    ///
    /// A projection's layout ranks a whole state as its projection would be: pieces
    /// it does not keep count as blanks.
    #[inline]
    #[must_use]
    pub fn rank(&self, pattern: View<'_>) -> u64 {
        let mut index = 0u64;
        for part in self.parts.iter().filter(|p| p.size() > 1) {
            let (rank, _) = self.rank_part(part, pattern);
            index = index * part.size() + rank;
        }
        index
    }

    /// A part's rank and (for distinct pieces) its permutation's parity.
    #[inline]
    fn rank_part(&self, part: &Part, pattern: View<'_>) -> (u64, u8) {
        let n = part.places.len();
        let m = part.modulus as u64;
        match &part.kind {
            Kind::Distinct { local, parity, .. } => {
                let items = self.items(part, local, pattern);
                let items = &items[..n];
                let (arrangement, p) = match parity {
                    Parity::Free => (permutation::rank(items), 0),
                    Parity::Fixed(_) => (
                        permutation::rank_within_parity(items),
                        permutation::parity(items),
                    ),
                };
                let mut twist = 0u64;
                for &q in &part.places[..part.digits as usize] {
                    twist = twist * m + pattern.orientation[q as usize] as u64;
                }
                (arrangement * part.twists + twist, p)
            }
            Kind::Partial {
                item, placements, ..
            } => {
                let mut at = [0u8; 32];
                for (j, &p) in part.places.iter().enumerate() {
                    let i = item[pattern.pieces[p as usize] as usize];
                    if i != u8::MAX {
                        at[i as usize] = j as u8;
                    }
                }
                let k = placements.items();
                let mut twist = 0u64;
                if m > 1 {
                    for &j in &at[..k] {
                        twist = twist * m
                            + pattern.orientation[part.places[j as usize] as usize] as u64;
                    }
                }
                (placements.rank(&at[..k]) * part.twists + twist, 0)
            }
            Kind::Classes {
                class,
                ranked,
                oriented,
                sum,
                ..
            } => {
                let mut classes = [0u8; 32];
                for (slot, &p) in classes.iter_mut().zip(&part.places) {
                    *slot = class[pattern.pieces[p as usize] as usize];
                }
                let arrangement = rank_classes(&classes[..n], ranked);
                let mut twist = 0u64;
                // With a kept sum, the last place's twist is implied.
                let ranked_places = n - usize::from(sum.is_some());
                for (i, &q) in part.places[..ranked_places].iter().enumerate() {
                    if oriented[classes[i] as usize] {
                        twist = twist * m + pattern.orientation[q as usize] as u64;
                    }
                }
                (arrangement * part.twists + twist, 0)
            }
        }
    }

    /// The state with index `index` (`index < count`), written over `pattern` (whose
    /// fixed positions must hold the goal's).
    pub fn unrank(&self, mut index: u64, pattern: &mut Pattern) {
        let mut ranks = [0u64; 64];
        for (j, part) in self.parts.iter().enumerate().rev() {
            ranks[j] = index % part.size();
            index /= part.size();
        }
        let mut parities = 0u64;
        for (j, part) in self.parts.iter().enumerate() {
            let p = self.unrank_part(part, ranks[j], parities, pattern);
            parities |= (p as u64) << j;
        }
    }

    fn unrank_part(&self, part: &Part, rank: u64, parities: u64, pattern: &mut Pattern) -> u8 {
        let n = part.places.len();
        let m = part.modulus as u64;
        let (arrangement, mut twist) = (rank / part.twists, rank % part.twists);
        match &part.kind {
            Kind::Distinct {
                labels,
                parity,
                sum,
                ..
            } => {
                let mut items = [0u8; 32];
                let p = match parity {
                    Parity::Free => {
                        permutation::unrank(arrangement, &mut items[..n]);
                        0
                    }
                    Parity::Fixed(mask) => {
                        let p = (parities & mask).count_ones() as u8 & 1;
                        permutation::unrank_within_parity(arrangement, p, &mut items[..n]);
                        p
                    }
                };
                for (i, &q) in part.places.iter().enumerate() {
                    pattern.pieces[q as usize] = labels[items[i] as usize];
                }
                let digits = part.digits as usize;
                let mut total = 0u64;
                for &q in part.places[..digits].iter().rev() {
                    let o = twist % m;
                    twist /= m;
                    total += o;
                    pattern.orientation[q as usize] = o as u8;
                }
                if m > 1 && digits < n {
                    let last = part.places[n - 1] as usize;
                    let want = sum.expect("an implied orientation has a sum") as u64;
                    pattern.orientation[last] = ((want + m * n as u64 - total % m) % m) as u8;
                } else if m == 1 {
                    for &q in &part.places {
                        pattern.orientation[q as usize] = 0;
                    }
                }
                p
            }
            Kind::Partial {
                labels, placements, ..
            } => {
                for &q in &part.places {
                    pattern.pieces[q as usize] = BLANK;
                    pattern.orientation[q as usize] = 0;
                }
                let k = placements.items();
                let mut at = [0u8; 32];
                placements.unrank(arrangement, &mut at[..k]);
                for i in (0..k).rev() {
                    let q = part.places[at[i] as usize] as usize;
                    pattern.pieces[q] = labels[i];
                    if m > 1 {
                        pattern.orientation[q] = (twist % m) as u8;
                        twist /= m;
                    }
                }
                0
            }
            Kind::Classes {
                labels,
                ranked,
                oriented,
                sum,
                ..
            } => {
                let mut classes = [0u8; 32];
                let last = (labels.len() - 1) as u8;
                unrank_classes(arrangement, ranked, last, &mut classes[..n]);
                let mut total = 0u64;
                for i in (0..n).rev() {
                    let q = part.places[i] as usize;
                    pattern.pieces[q] = labels[classes[i] as usize];
                    pattern.orientation[q] = if sum.is_some() && i == n - 1 {
                        0 // implied: written below
                    } else if oriented[classes[i] as usize] {
                        let o = twist % m;
                        twist /= m;
                        total += o;
                        o as u8
                    } else {
                        0
                    };
                }
                if let Some(sum) = sum {
                    let last = part.places[n - 1] as usize;
                    pattern.orientation[last] =
                        ((*sum as u64 + m * n as u64 - total % m) % m) as u8;
                }
                0
            }
        }
    }

    /// The coordinates the breadth-first search can move by table: one per part (two
    /// for a part of distinct pieces: arrangement and orientations), or `None` if a
    /// part's parity depends on another part's (then the whole index moves together).
    #[must_use]
    pub fn coordinates(&self) -> Option<Vec<Coordinate>> {
        let mut out = Vec::new();
        for (j, part) in self.parts.iter().enumerate() {
            match &part.kind {
                Kind::Distinct { parity, .. } => {
                    if matches!(parity, Parity::Fixed(mask) if *mask != 0) {
                        return None;
                    }
                    out.push(Coordinate {
                        part: j,
                        what: Split::Arrangement,
                        size: part.arrangements,
                    });
                    if part.twists > 1 {
                        out.push(Coordinate {
                            part: j,
                            what: Split::Twist,
                            size: part.twists,
                        });
                    }
                }
                // A few pieces among blanks: their orientations are theirs, in item
                // order, so a move adds to each the twist of the place it lands on,
                // which the placement alone decides.
                Kind::Partial { .. } if part.twists > 1 && part.twists <= MAX_SUMMED_TWISTS => {
                    out.push(Coordinate {
                        part: j,
                        what: Split::Arrangement,
                        size: part.arrangements,
                    });
                    out.push(Coordinate {
                        part: j,
                        what: Split::PlacedTwist,
                        size: part.twists,
                    });
                }
                Kind::Classes { .. } | Kind::Partial { .. } => out.push(Coordinate {
                    part: j,
                    what: Split::Whole,
                    size: part.size(),
                }),
            }
        }
        Some(out)
    }

    /// The value of coordinate `c` after each move in `moves`, for every value of `c`:
    /// `table[value * moves.len() + move]`. A [`Split::PlacedTwist`] has no such table
    /// (panics): see [`Layout::placement_tables`].
    #[must_use]
    pub fn move_table(
        &self,
        c: &Coordinate,
        moves: &[Transformation],
        goal: &Pattern,
        moduli: &[u8],
    ) -> Vec<u32> {
        assert_ne!(
            c.what,
            Split::PlacedTwist,
            "a placed twist moves by its placement"
        );
        let part = &self.parts[c.part];
        let mut table = vec![0u32; c.size as usize * moves.len()];
        let mut pattern = goal.clone();
        let stride = match c.what {
            Split::Arrangement => part.twists,
            Split::Twist | Split::PlacedTwist | Split::Whole => 1,
        };
        for value in 0..c.size {
            let row = &mut table[value as usize * moves.len()..][..moves.len()];
            self.ranks_after_moves(
                part,
                value * stride,
                &mut pattern,
                moves,
                moduli,
                |k, rank| {
                    row[k] = match c.what {
                        Split::Arrangement => rank / part.twists,
                        Split::Twist | Split::PlacedTwist => rank % part.twists,
                        Split::Whole => rank,
                    } as u32;
                },
            );
        }
        table
    }

    /// Writes the part's state of rank `rank` over `pattern` and tells `after` the
    /// part's rank after each move (by its position in `moves`).
    fn ranks_after_moves(
        &self,
        part: &Part,
        rank: u64,
        pattern: &mut Pattern,
        moves: &[Transformation],
        moduli: &[u8],
        mut after: impl FnMut(usize, u64),
    ) {
        self.unrank_part(part, rank, 0, pattern);
        for (k, t) in moves.iter().enumerate() {
            after(k, self.rank_part(part, t.apply(pattern, moduli).view()).0);
        }
    }

    /// For a [`Split::PlacedTwist`] `c` (a projection's few pieces among blanks): per
    /// placement of the pieces and move in `moves`, the placement after the move and
    /// the twist the move adds to the pieces' orientations there, as a value of `c`
    /// (`[placement * moves.len() + move]` in both). The twist after a move is the
    /// digit-wise sum of the twist before and the added one ([`Layout::twist_sums`]).
    #[must_use]
    pub fn placement_tables(
        &self,
        c: &Coordinate,
        moves: &[Transformation],
        goal: &Pattern,
        moduli: &[u8],
    ) -> (Vec<u32>, Vec<u16>) {
        assert_eq!(c.what, Split::PlacedTwist, "a placed twist's tables");
        let part = &self.parts[c.part];
        let cells = part.arrangements as usize * moves.len();
        let (mut placements, mut added) = (vec![0u32; cells], vec![0u16; cells]);
        // Placements in runs, each on its own copy of the goal.
        let run = 4096 * moves.len();
        placements
            .par_chunks_mut(run)
            .zip(added.par_chunks_mut(run))
            .enumerate()
            .for_each(|(chunk, (placements, added))| {
                let mut pattern = goal.clone();
                let first = (chunk * 4096) as u64;
                for (v, (placements, added)) in placements
                    .chunks_mut(moves.len())
                    .zip(added.chunks_mut(moves.len()))
                    .enumerate()
                {
                    // Every piece untwisted: the twist after a move is what it added.
                    let untwisted = (first + v as u64) * part.twists;
                    self.ranks_after_moves(
                        part,
                        untwisted,
                        &mut pattern,
                        moves,
                        moduli,
                        |k, rank| {
                            placements[k] = (rank / part.twists) as u32;
                            added[k] = (rank % part.twists) as u16;
                        },
                    );
                }
            });
        (placements, added)
    }

    /// For a [`Split::PlacedTwist`] `c`: `sums[a * size + b]`, the twist whose every
    /// piece's orientation is the sum of its orientations in `a` and `b` (modulo the
    /// part's).
    #[must_use]
    pub fn twist_sums(&self, c: &Coordinate) -> Vec<u32> {
        let part = &self.parts[c.part];
        let (m, size) = (part.modulus as u64, part.twists);
        let mut sums = Vec::with_capacity((size * size) as usize);
        for a in 0..size {
            for b in 0..size {
                let (mut x, mut y, mut sum, mut place) = (a, b, 0, 1);
                for _ in 0..part.digits {
                    sum += (x % m + y % m) % m * place;
                    (x, y, place) = (x / m, y / m, place * m);
                }
                sums.push(sum as u32);
            }
        }
        sums
    }

    /// The parts whose rank is a digit of the index (more than one value), in the
    /// index's order (the first most significant): each one's places and number of
    /// values, and whether it ranks on its own (its parity is not tied to another
    /// part's, as the 3x3x3's edges' is to its corners').
    #[must_use]
    pub fn digits(&self) -> Vec<Digit<'_>> {
        self.parts
            .iter()
            .enumerate()
            .filter(|(_, p)| p.size() > 1)
            .map(|(j, p)| Digit {
                part: j,
                places: &p.places,
                size: p.size(),
                alone: !matches!(
                    p.kind,
                    Kind::Distinct { parity: Parity::Fixed(mask), .. } if mask != 0
                ),
            })
            .collect()
    }

    /// The rank of part `part` ([`Digit::part`]) in `pattern`.
    #[inline]
    #[must_use]
    pub fn rank_digit(&self, part: usize, pattern: View<'_>) -> u64 {
        self.rank_part(&self.parts[part], pattern).0
    }

    /// Writes part `part` ([`Digit::part`], one that ranks on its own) with rank
    /// `rank` over `pattern`.
    pub fn unrank_digit(&self, part: usize, rank: u64, pattern: &mut Pattern) {
        self.unrank_part(&self.parts[part], rank, 0, pattern);
    }

    /// For every value of part `part` ([`Digit::part`], written over a copy of `base`), its rank
    /// after each of `maps` (each writes its image of the first pattern into the
    /// second): `table[value * maps + k]`. Built in parallel runs.
    #[must_use]
    pub fn digit_table(
        &self,
        part: usize,
        base: &Pattern,
        maps: usize,
        map: impl Fn(usize, &Pattern, &mut Pattern) + Sync,
    ) -> Vec<u32> {
        self.digit_table_onto(part, |_| part, base, maps, map)
    }

    /// [`Layout::digit_table`] where map `k` takes the part onto part `onto(k)`
    /// (a symmetry that permutes parts of one shape): the rank is that part's.
    #[must_use]
    pub fn digit_table_onto(
        &self,
        part: usize,
        onto: impl Fn(usize) -> usize + Sync,
        base: &Pattern,
        maps: usize,
        map: impl Fn(usize, &Pattern, &mut Pattern) + Sync,
    ) -> Vec<u32> {
        let part = &self.parts[part];
        let mut table = vec![0u32; part.size() as usize * maps];
        let run = 4096 * maps;
        table
            .par_chunks_mut(run)
            .enumerate()
            .for_each(|(chunk, rows)| {
                let (mut pattern, mut image) = (base.clone(), base.clone());
                for (v, row) in rows.chunks_mut(maps).enumerate() {
                    let value = (chunk * 4096 + v) as u64;
                    self.unrank_part(part, value, 0, &mut pattern);
                    for (k, cell) in row.iter_mut().enumerate() {
                        map(k, &pattern, &mut image);
                        *cell = self.rank_part(&self.parts[onto(k)], image.view()).0 as u32;
                    }
                }
            });
        table
    }
}

/// One digit of a [`Layout`]'s index: a part with more than one value.
#[derive(Debug, Clone, Copy)]
pub struct Digit<'a> {
    /// Which part of the layout it is.
    pub part: usize,
    /// The full positions of the part.
    pub places: &'a [u8],
    /// Its number of values.
    pub size: u64,
    /// Whether it ranks on its own (no parity tied to another part's).
    pub alone: bool,
}

/// Whether every move keeps the orientation sum of `places` (orientations mod
/// `modulus`, at least 2).
fn keeps_sum(places: &[u8], modulus: u8, moves: &[&Transformation]) -> bool {
    modulus > 1
        && moves.iter().all(|t| {
            places
                .iter()
                .map(|&p| t.delta[p as usize] as u32)
                .sum::<u32>()
                .is_multiple_of(modulus as u32)
        })
}

/// The orientation sum of `places` in `goal`, mod `modulus`.
fn orientation_sum(places: &[u8], modulus: u8, goal: &Pattern) -> u8 {
    (places
        .iter()
        .map(|&p| goal.orientation[p as usize] as u32)
        .sum::<u32>()
        % modulus as u32) as u8
}

/// The most twists of a projection's few pieces moved by their placement
/// ([`Split::PlacedTwist`]): their sums take `4 MAX_SUMMED_TWISTS^2` bytes, and a
/// twist added fits 16 bits.
const MAX_SUMMED_TWISTS: u64 = 1 << 10;

/// Which part of a part's rank a coordinate is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Split {
    /// The arrangement of distinct pieces.
    Arrangement,
    /// Their orientations.
    Twist,
    /// The whole rank.
    Whole,
    /// The orientations of a projection's few pieces among blanks, in piece order:
    /// what a move adds to them depends on where the pieces stand, the
    /// [`Split::Arrangement`] coordinate just before it ([`Layout::placement_tables`]).
    PlacedTwist,
}

/// A coordinate of the index: a part's rank or one factor of it.
#[derive(Debug, Clone)]
pub struct Coordinate {
    part: usize,
    /// Which part of the part's rank it is.
    pub what: Split,
    /// Its number of values.
    pub size: u64,
}

impl Part {
    /// The part of `places`: distinct pieces, a few among blanks, or kinds of
    /// identical pieces, as the goal holds them.
    fn new(
        places: Vec<u8>,
        goal: &Pattern,
        moves: &[&Transformation],
        moduli: &[u8],
        orbit_of: &impl Fn(usize) -> String,
    ) -> Result<Part, RankingError> {
        let n = places.len();
        let places_first = places[0];
        let modulus = moduli[places[0] as usize];
        let labels: Vec<u8> = places.iter().map(|&p| goal.pieces[p as usize]).collect();
        if n > MAX_PART_PLACES {
            return Err(RankingError::TooLarge(format!(
                "orbit {}: {n} places exchange pieces; at most {MAX_PART_PLACES} can be ranked",
                orbit_of(places[0] as usize)
            )));
        }
        let mut sorted = labels.clone();
        sorted.sort_unstable();
        let distinct = sorted.windows(2).all(|w| w[0] != w[1]) && !sorted.contains(&BLANK);
        let part = if distinct {
            if n > permutation::MAX_ITEMS {
                return Err(RankingError::TooLarge(format!(
                    "orbit {}: {n} distinct pieces exchange places; at most {} can be ranked",
                    orbit_of(places[0] as usize),
                    permutation::MAX_ITEMS
                )));
            }
            Part::distinct(places, labels, modulus, goal, moves)
        } else if let Some(tracked) = partial_items(&labels) {
            let k = tracked.len();
            let mut item = Box::new([u8::MAX; 256]);
            for (i, &label) in tracked.iter().enumerate() {
                item[label as usize] = i as u8;
            }
            let digits = if modulus > 1 { k as u32 } else { 0 };
            let placements = Box::new(Placements::new(n, k));
            Part {
                arrangements: placements.count(),
                twists: (modulus as u64).pow(digits),
                places,
                modulus,
                kind: Kind::Partial {
                    item,
                    labels: tracked,
                    placements,
                },
                digits,
            }
        } else {
            Part::classes(places, &labels, sorted, modulus, goal, moves).ok_or_else(|| {
                RankingError::TooLarge(format!(
                    "orbit {}: too many arrangements to rank",
                    orbit_of(places_first as usize)
                ))
            })?
        };
        Ok(part)
    }
    /// Distinct pieces, numbered in the goal's order (the goal is the identity, even);
    /// the last orientation implied where every move keeps the orientation sum.
    fn distinct(
        places: Vec<u8>,
        labels: Vec<u8>,
        modulus: u8,
        goal: &Pattern,
        moves: &[&Transformation],
    ) -> Part {
        let n = places.len();
        let mut local = Box::new([u8::MAX; 256]);
        for (i, &label) in labels.iter().enumerate() {
            local[label as usize] = i as u8;
        }
        let keeps_sum = keeps_sum(&places, modulus, moves);
        let sum = keeps_sum.then(|| orientation_sum(&places, modulus, goal));
        let digits = if modulus == 1 {
            0
        } else if keeps_sum {
            n as u32 - 1
        } else {
            n as u32
        };
        Part {
            arrangements: crate::rank::factorial(n),
            twists: (modulus as u64).pow(digits),
            places,
            modulus,
            kind: Kind::Distinct {
                local,
                labels,
                parity: Parity::Free,
                sum,
            },
            digits,
        }
    }

    /// Kinds of identical pieces (`sorted`: the labels, ascending), `None` if their
    /// arrangements do not fit 64 bits.
    fn classes(
        places: Vec<u8>,
        labels: &[u8],
        mut sorted: Vec<u8>,
        modulus: u8,
        goal: &Pattern,
        moves: &[&Transformation],
    ) -> Option<Part> {
        let n = places.len();
        sorted.dedup();
        // Pieces a projection does not keep are its blanks, wherever they are.
        let blank = sorted.iter().position(|&l| l == BLANK);
        let mut class = Box::new([blank.map_or(u8::MAX, |b| b as u8); 256]);
        for (i, &label) in sorted.iter().enumerate() {
            class[label as usize] = i as u8;
        }
        let counts: Vec<u8> = sorted
            .iter()
            .map(|&l| labels.iter().filter(|&&x| x == l).count() as u8)
            .collect();
        let oriented: Vec<bool> = sorted
            .iter()
            .zip(&counts)
            .map(|(&l, _)| modulus > 1 && l != BLANK)
            .collect();
        // Every piece shows its twist, alike or not (a projection's blanks do not).
        let mut digits: u32 = oriented
            .iter()
            .zip(&counts)
            .filter(|(o, _)| **o)
            .map(|(_, &c)| c as u32)
            .sum();
        // Where every piece shows its twist and every move keeps the orientation sum,
        // the last place's twist is implied (the 3-colour cube's corners: 3^7, not 3^8).
        let sum = (blank.is_none() && keeps_sum(&places, modulus, moves)).then(|| {
            digits -= 1;
            orientation_sum(&places, modulus, goal)
        });
        let mut arrangements: u128 = 1;
        let mut left = n;
        for &c in &counts {
            arrangements *= binomial(left, c as usize) as u128;
            left -= c as usize;
        }
        let arrangements = u64::try_from(arrangements).ok()?;
        Some(Part {
            arrangements,
            twists: (modulus as u64).pow(digits),
            places,
            modulus,
            kind: Kind::Classes {
                class,
                labels: sorted,
                ranked: ranked_kinds(&counts),
                oriented,
                sum,
            },
            digits,
        })
    }
}

/// The places moved, grouped into the components of the moves' permutations (places
/// that exchange pieces), each ascending, in the order of their first place.
fn components(moves: &[&Transformation], moved: &[bool]) -> Vec<Vec<u8>> {
    let positions = moved.len();
    let mut root: Vec<usize> = (0..positions).collect();
    fn find(root: &mut [usize], mut x: usize) -> usize {
        while root[x] != x {
            root[x] = root[root[x]];
            x = root[x];
        }
        x
    }
    for t in moves {
        for (to, &from) in t.permutation.iter().enumerate() {
            let (a, b) = (find(&mut root, to), find(&mut root, from as usize));
            root[a.max(b)] = a.min(b);
        }
    }
    let mut places_of: Vec<Vec<u8>> = Vec::new();
    let mut part_of_root = vec![usize::MAX; positions];
    for p in (0..positions).filter(|&p| moved[p]) {
        let r = find(&mut root, p);
        if part_of_root[r] == usize::MAX {
            part_of_root[r] = places_of.len();
            places_of.push(Vec::new());
        }
        places_of[part_of_root[r]].push(p as u8);
    }

    places_of
}

/// Parity rules: a part's parity under every move, as a function of the parities of
/// the distinct parts before it; where there is one, the part numbers half its
/// arrangements.
fn set_parity_rules(parts: &mut [Part], moves: &[&Transformation]) {
    let parity_of = |t: &Transformation, part: &Part| -> u64 {
        if !matches!(part.kind, Kind::Distinct { .. }) {
            return 0;
        }
        // The permutation of the part's places the move makes.
        let index_of = |p: u8| part.places.iter().position(|&q| q == p).expect("closed");
        let items: Vec<u8> = part
            .places
            .iter()
            .map(|&p| index_of(t.permutation[p as usize]) as u8)
            .collect();
        permutation::parity(&items) as u64
    };
    let vectors: Vec<u64> = moves
        .iter()
        .map(|t| {
            parts
                .iter()
                .enumerate()
                .map(|(j, part)| parity_of(t, part) << j)
                .fold(0, |a, b| a | b)
        })
        .collect();
    let distinct_parts: Vec<usize> = (0..parts.len())
        .filter(|&j| matches!(parts[j].kind, Kind::Distinct { .. }) && parts[j].places.len() >= 2)
        .collect();
    for (k, &j) in distinct_parts.iter().enumerate().take(64) {
        let earlier = &distinct_parts[..k];
        if earlier.len() > 12 {
            break;
        }
        let rule = (0u64..1 << earlier.len()).find_map(|choice| {
            let mask: u64 = earlier
                .iter()
                .enumerate()
                .filter(|(bit, _)| choice >> bit & 1 == 1)
                .map(|(_, &part)| 1u64 << part)
                .sum();
            vectors
                .iter()
                .all(|&v| (v >> j & 1) == (v & mask).count_ones() as u64 & 1)
                .then_some(mask)
        });
        if let (Some(mask), Kind::Distinct { parity, .. }) = (rule, &mut parts[j].kind) {
            *parity = Parity::Fixed(mask);
            parts[j].arrangements /= 2;
        }
    }
}

/// The distinct pieces of a part that holds them among blanks (and at least one of
/// each), in label order; `None` for any other part.
fn partial_items(labels: &[u8]) -> Option<Vec<u8>> {
    let mut tracked: Vec<u8> = labels.iter().copied().filter(|&l| l != BLANK).collect();
    tracked.sort_unstable();
    let distinct = tracked.windows(2).all(|w| w[0] != w[1]);
    let blanks = labels.len() - tracked.len();
    (distinct && blanks > 0 && !tracked.is_empty()).then_some(tracked)
}

/// The kinds ranked by place, kind `k` coded `k`: all but the last, whose places are
/// those left.
fn ranked_kinds(counts: &[u8]) -> Vec<PieceKind> {
    let ranked = counts.len().saturating_sub(1);
    (0..ranked)
        .map(|k| PieceKind {
            code: k as u8,
            count: counts[k],
        })
        .collect()
}

/// Rank of a sequence of kinds (`kinds` as [`ranked_kinds`] gives them): kind by kind,
/// the places it takes among the places left, as a combination, in mixed radix.
fn rank_classes(classes: &[u8], kinds: &[PieceKind]) -> u64 {
    kinds::rank(classes, all_places(classes.len()), kinds).0
}

/// Inverse of [`rank_classes`]; `last` is the code of the kind left out of `kinds`.
fn unrank_classes(rank: u64, kinds: &[PieceKind], last: u8, out: &mut [u8]) {
    out.fill(last);
    kinds::unrank(rank, all_places(out.len()), kinds, out);
}

/// The mask of places `0..n` (`n <= 32`).
fn all_places(n: usize) -> u32 {
    if n == 32 { u32::MAX } else { (1u32 << n) - 1 }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn classes_rank_is_a_bijection(counts in proptest::collection::vec(1u8..4, 1..5), seed: u64) {
            let n: usize = counts.iter().map(|&c| c as usize).sum();
            let mut total = 1u64;
            let mut left = n;
            for &c in &counts {
                total *= binomial(left, c as usize);
                left -= c as usize;
            }
            let rank = seed % total;
            let mut out = vec![0u8; n];
            let kinds = ranked_kinds(&counts);
            unrank_classes(rank, &kinds, counts.len() as u8 - 1, &mut out);
            for (k, &c) in counts.iter().enumerate() {
                prop_assert_eq!(out.iter().filter(|&&x| x == k as u8).count(), c as usize);
            }
            prop_assert_eq!(rank_classes(&out, &kinds), rank);
        }
    }
}
