//! IDA* on a KPuzzle: a node is the pieces and orientations in two fixed arrays
//! (a move is one table pass, no allocation), the bound is the largest distance the
//! pattern databases give (each the depth table of a projection, looked up by ranking
//! the whole state as the projection sees it), and the move sequences the cubing
//! solvers prune are not generated: a generator never follows itself in the
//! half-turn metric (its powers are single moves) nor its own inverse in the quarter
//! one, and of two generators that commute (opposite faces) only one order is tried.

use crate::puzzle::{Notation, Puzzle};
use crate::puzzles::kpuzzle::Turn;
use crate::puzzles::kpuzzle::definition::Pattern;
use crate::puzzles::kpuzzle::goal;
use crate::puzzles::kpuzzle::ranking::{BLANK, View};
use crate::puzzles::kpuzzle::{KPuzzle, TurnMetric};
use crate::search::{SearchSpace, Solvable};
use crate::store::Depths;
use crate::table::Table;

/// The most positions a search node holds.
pub const MAX_SEARCH_POSITIONS: usize = 64;

/// A search node: the pieces and orientations of every position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KNode {
    pieces: [u8; MAX_SEARCH_POSITIONS],
    orientation: [u8; MAX_SEARCH_POSITIONS],
}

impl KNode {
    fn view(&self, positions: usize) -> View<'_> {
        View {
            pieces: &self.pieces[..positions],
            orientation: &self.orientation[..positions],
        }
    }
}

/// One turn as a table pass: the position each piece comes from, the orientation
/// added there and that position's modulus.
#[derive(Debug, Clone)]
struct TurnTable {
    from: [u8; MAX_SEARCH_POSITIONS],
    delta: [u8; MAX_SEARCH_POSITIONS],
}

/// A pattern database of a twisty puzzle: the depth table of one projection, its
/// entries copied into memory backed by huge pages where the system has them (a
/// search reads them at random: with 4 KiB pages nearly every probe also misses the
/// TLB).
pub struct Database {
    projection: KPuzzle,
    table: Table,
    /// `depth + 1` per index.
    entries: Vec<u8>,
}

impl Database {
    /// The database of `projection` in `table` (an 8-bit depth table of it).
    ///
    /// # Errors
    /// [`KSearchError`] if the puzzle's positions are too many for the search's node or
    /// the projections do not belong to it.
    pub fn new(projection: KPuzzle, table: Table) -> Result<Database, KSearchError> {
        table
            .check_all()
            .map_err(|e| KSearchError::Database(e.to_string()))?;
        let Depths::Byte(bytes) = table.depths() else {
            return Err(KSearchError::Database(format!(
                "{}: pattern databases are 8-bit tables",
                table.path().display()
            )));
        };
        if projection.layout.is_err() {
            return Err(KSearchError::Database(format!(
                "{} cannot be ranked",
                Notation::name(&projection)
            )));
        }
        let bytes = bytes.as_bytes();
        let mut entries = Vec::with_capacity(bytes.len());
        crate::sys::advise_huge_pages(entries.spare_capacity_mut());
        entries.extend_from_slice(bytes);
        Ok(Database {
            projection,
            table,
            entries,
        })
    }

    /// The projection.
    pub fn projection(&self) -> &KPuzzle {
        &self.projection
    }

    /// The table it was read from.
    pub fn table(&self) -> &Table {
        &self.table
    }

    /// The index of a whole state in this database.
    #[inline(always)]
    fn index(&self, view: View<'_>) -> usize {
        match &self.projection.layout {
            Ok(layout) => layout.rank(view) as usize,
            Err(_) => unreachable!("checked in Database::new"),
        }
    }

    /// The distance stored at `index`: a lower bound on the whole state's distance.
    #[inline(always)]
    fn at(&self, index: usize) -> u32 {
        self.entries[index].wrapping_sub(1) as u32
    }

    /// Asks the processor to fetch the entry at `index` into its caches.
    #[inline(always)]
    fn prefetch(&self, index: usize) {
        if let Some(entry) = self.entries.get(index) {
            crate::cpu::prefetch(entry);
        }
    }

    fn distance(&self, view: View<'_>) -> u32 {
        self.at(self.index(view))
    }
}

/// The most databases a search takes.
const MAX_DATABASES: usize = 8;

/// A search space over a KPuzzle, with pattern databases or none (plain iterative
/// deepening with move pruning).
pub struct KSearch {
    puzzle: KPuzzle,
    turns: Vec<TurnTable>,
    modulus: [u8; MAX_SEARCH_POSITIONS],
    positions: usize,
    /// The goal and, up to rotation with identical pieces, its rotations (each a
    /// position at distance 0).
    goals: Vec<KNode>,
    databases: Vec<Database>,
}

/// Why a search space cannot be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KSearchError {
    /// More positions than a node holds.
    #[error("{0} has {1} positions; a search node holds at most {MAX_SEARCH_POSITIONS}")]
    TooLarge(String, usize),
    /// A database that is not an 8-bit table of a projection of this puzzle.
    #[error("{0}")]
    Database(String),
}

impl KSearch {
    /// The search over `puzzle` bounded by `databases`.
    ///
    /// # Errors
    /// [`KSearchError`] if the puzzle's positions are too many for the search's node or
    /// the projections do not belong to it.
    pub fn new(puzzle: &KPuzzle, databases: Vec<Database>) -> Result<KSearch, KSearchError> {
        let positions = puzzle.definition.positions();
        if positions > MAX_SEARCH_POSITIONS {
            return Err(KSearchError::TooLarge(Notation::name(puzzle), positions));
        }
        if databases.len() > MAX_DATABASES {
            return Err(KSearchError::Database(format!(
                "at most {MAX_DATABASES} pattern databases"
            )));
        }
        for db in &databases {
            if db.projection.definition.positions() != positions
                || db.projection.generator_names() != puzzle.generator_names()
                || db.projection.variant.metric != puzzle.variant.metric
            {
                return Err(KSearchError::Database(format!(
                    "{} is not a projection of {} under the same moves",
                    Notation::name(&db.projection),
                    Notation::name(puzzle)
                )));
            }
        }
        // Up to rotation with identical pieces, the goal's rotations are goals too.
        let rotations = if puzzle.pattern_classes().is_some_and(|c| c.has_rotations()) {
            puzzle.goal_positions()
        } else {
            vec![puzzle.goal.clone()]
        };
        if rotations.len() > 1 && !databases.is_empty() {
            return Err(KSearchError::Database(
                "pattern databases bound the distance to the solved state, not to its \
                 rotations: solve positions up to rotation by their table (--table) or \
                 without --pdb"
                    .into(),
            ));
        }
        if puzzle.goal_patterns().is_some() && !databases.is_empty() {
            return Err(KSearchError::Database(
                "pattern databases bound the distance to the solved state, not to a goal \
                 set: solve a goal set by its table (--table) or without --pdb"
                    .into(),
            ));
        }
        let mut modulus = [1u8; MAX_SEARCH_POSITIONS];
        modulus[..positions].copy_from_slice(&puzzle.definition.moduli);
        let turns = puzzle
            .turn_moves
            .iter()
            .map(|t| {
                let mut table = TurnTable {
                    from: [0; MAX_SEARCH_POSITIONS],
                    delta: [0; MAX_SEARCH_POSITIONS],
                };
                table.from[..positions].copy_from_slice(&t.permutation);
                table.delta[..positions].copy_from_slice(&t.delta);
                table
            })
            .collect();
        let mut space = KSearch {
            puzzle: puzzle.clone(),
            turns,
            modulus,
            positions,
            goals: Vec::new(),
            databases,
        };
        space.goals = std::iter::once(&puzzle.goal)
            .chain(rotations.iter().filter(|r| **r != puzzle.goal))
            .map(|pattern| space.node_of(pattern))
            .collect();
        Ok(space)
    }

    /// The node of a pattern.
    #[must_use]
    pub fn node_of(&self, pattern: &Pattern) -> KNode {
        let mut node = KNode {
            pieces: [0; MAX_SEARCH_POSITIONS],
            orientation: [0; MAX_SEARCH_POSITIONS],
        };
        node.pieces[..self.positions].copy_from_slice(&pattern.pieces);
        node.orientation[..self.positions].copy_from_slice(&pattern.orientation);
        node
    }

    /// The pattern of a node.
    #[must_use]
    pub fn pattern_of(&self, node: &KNode) -> Pattern {
        let pieces = node.pieces[..self.positions].to_vec();
        let orientation = node.orientation[..self.positions]
            .iter()
            .zip(&pieces)
            .map(|(&o, &piece)| if piece == BLANK { 0 } else { o })
            .collect();
        Pattern {
            pieces,
            orientation,
        }
    }

    /// The databases.
    #[must_use]
    pub fn databases(&self) -> &[Database] {
        &self.databases
    }

    #[inline(always)]
    fn turned(&self, node: &KNode, turn: usize) -> KNode {
        let t = &self.turns[turn];
        let mut child = *node;
        for p in 0..self.positions {
            let from = t.from[p] as usize;
            child.pieces[p] = node.pieces[from];
            let o = node.orientation[from] + t.delta[p];
            let m = self.modulus[p];
            child.orientation[p] = if o >= m { o - m } else { o };
        }
        child
    }
}

impl SearchSpace for KSearch {
    type Node = KNode;
    type Move = Turn;

    fn bound(&self, node: &KNode) -> u32 {
        let view = node.view(self.positions);
        self.databases
            .iter()
            .map(|db| db.distance(view))
            .max()
            .unwrap_or(0)
    }

    fn is_goal(&self, node: &KNode) -> bool {
        let view = node.view(self.positions);
        match self.puzzle.goal_patterns() {
            // A blank's orientation is not seen (the search's turns do not clear it).
            None => self.goals.iter().any(|goal| {
                (0..self.positions).all(|p| {
                    let piece = goal.pieces[p];
                    view.pieces[p] == piece
                        && (piece == BLANK || view.orientation[p] == goal.orientation[p])
                })
            }),
            Some(patterns) => patterns.iter().any(|pattern| goal::matches(pattern, view)),
        }
    }

    fn for_each_child(
        &self,
        node: &mut KNode,
        last: Option<Turn>,
        mut visit: impl FnMut(Turn, &mut KNode, u32) -> bool,
    ) -> bool {
        for (k, &turn) in self.puzzle.turns.iter().enumerate() {
            if let Some(last) = last
                && pruned(&self.puzzle, last, turn)
            {
                continue;
            }
            let mut child = self.turned(node, k);
            let bound = self.bound(&child);
            if visit(turn, &mut child, bound) {
                return true;
            }
        }
        false
    }

    fn for_each_child_within(
        &self,
        node: &mut KNode,
        last: Option<Turn>,
        max_bound: u32,
        mut visit: impl FnMut(Turn, &mut KNode, u32) -> bool,
    ) -> bool {
        // Database by database over all children before going down into any: each
        // pass asks for every entry it will read before reading one, so the memory
        // latencies of the children overlap (a probe is nearly always a cache miss),
        // and a child cut by one database is not looked up in the next.
        let turns = &self.puzzle.turns;
        if turns.len() > MAX_BATCHED_TURNS {
            return self.for_each_child(node, last, |turn, child, bound| {
                bound <= max_bound && visit(turn, child, bound)
            });
        }
        let mut kept = [0u8; MAX_BATCHED_TURNS];
        let mut indices = [0usize; MAX_BATCHED_TURNS];
        let mut bounds = [0u32; MAX_BATCHED_TURNS];
        let mut count = 0;
        for (k, &turn) in turns.iter().enumerate() {
            if last.is_none_or(|last| !pruned(&self.puzzle, last, turn)) {
                kept[count] = k as u8;
                count += 1;
            }
        }
        for db in &self.databases {
            for c in 0..count {
                if bounds[c] <= max_bound {
                    let child = self.turned(node, kept[c] as usize);
                    indices[c] = db.index(child.view(self.positions));
                    db.prefetch(indices[c]);
                }
            }
            for c in 0..count {
                if bounds[c] <= max_bound {
                    bounds[c] = bounds[c].max(db.at(indices[c]));
                }
            }
        }
        for c in 0..count {
            if bounds[c] <= max_bound {
                let k = kept[c] as usize;
                let mut child = self.turned(node, k);
                if visit(turns[k], &mut child, bounds[c]) {
                    return true;
                }
            }
        }
        false
    }
}

/// The most moves whose children are bounded in one batch.
const MAX_BATCHED_TURNS: usize = 64;

/// Whether `turn` after `last` is a sequence an optimal search need not try.
fn pruned(puzzle: &KPuzzle, last: Turn, turn: Turn) -> bool {
    if turn.generator == last.generator {
        // Half-turn metric: the two are one move. Quarter: only the inverse is wasted.
        return match puzzle.variant.metric {
            TurnMetric::Half => true,
            TurnMetric::Quarter => {
                let order = puzzle.generators[turn.generator as usize].order;
                (turn.amount as u32 + last.amount as u32).is_multiple_of(order)
            }
        };
    }
    turn.generator < last.generator && puzzle.commute(turn.generator, last.generator)
}

impl Solvable for KPuzzle {
    type Space = KSearch;

    fn search_space(&self, _bounded: bool) -> KSearch {
        KSearch::new(self, Vec::new()).expect("a ranked puzzle has few enough positions")
    }

    fn node(space: &KSearch, state: &Pattern) -> KNode {
        space.node_of(state)
    }

    fn state(space: &KSearch, node: &KNode) -> Pattern {
        space.pattern_of(node)
    }
}

/// The classes' positions are searched as the positions themselves.
impl Solvable for crate::puzzles::kpuzzle::classes::KClasses {
    type Space = KSearch;

    fn search_space(&self, bounded: bool) -> KSearch {
        self.base().search_space(bounded)
    }

    fn node(space: &KSearch, state: &Pattern) -> KNode {
        space.node_of(state)
    }

    fn state(space: &KSearch, node: &KNode) -> Pattern {
        space.pattern_of(node)
    }
}
