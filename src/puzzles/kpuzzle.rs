//! Twisty puzzles from KPuzzle definitions (the cubing community's JSON, see
//! [`definition`]): the 2x2x2, the Pyraminx, the Skewb, the 3x3x3 and its corners and
//! edges are shipped ([`library`]); any other definition is opened by its path.
//!
//! A [`KPuzzle`] is a definition under one move set: the generators (`--moves`, by
//! default the definition's `antipode.moves`, else its `moves`), each of whose powers
//! is one move in the half-turn metric, or only the quarter turns and their inverses
//! in the quarter-turn metric; optionally a *projection* (`--orbits CORNERS`,
//! `EDGES:0-5`), which keeps some pieces and makes the others identical blanks whose
//! orientation is not seen: the abstraction a pattern database stores; optionally a
//! goal set (`--goal`, [`goal`]): several solved patterns, or patterns with wildcards,
//! searched from at once.
//! [`ranking`] numbers its states, [`group`] finds how many the moves reach, and
//! [`crate::solvers::kpuzzle`] solves positions with IDA* over pattern databases of projections.
//!
//! Positions are written as a move sequence from the solved state (`R U R' U'`,
//! `R2`) or as the pattern itself, orbit by orbit: `CORNERS: 0 1 2 3 4 5 6 7 / 0 0 0
//! 0 0 0 0 0` (pieces, then orientations; `_` for a blank).

pub mod census;
pub mod chain;
pub mod classes;
pub mod definition;
pub mod goal;
pub mod group;
pub mod library;
pub mod pattern_classes;
pub mod pattern_index;
pub mod ranking;
pub mod relabel;
pub mod symmetry;
pub mod tws;

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex, OnceLock};

use chain::ChainRanking;
use definition::{Definition, DefinitionError, Pattern, Transformation, power, split_amount};
use ranking::{BLANK, Layout, RankingError, Split, View};

use crate::puzzle::{ClassCounts, Notation, PositionError, Puzzle, Successor};

/// How moves are counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TurnMetric {
    /// Every power of a generator is one move (HTM for face-turning cubes).
    #[default]
    Half,
    /// Only a generator and its inverse are moves (QTM).
    Quarter,
}

impl TurnMetric {
    /// `half` or `quarter`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            TurnMetric::Half => "half",
            TurnMetric::Quarter => "quarter",
        }
    }

    /// The metric named `name`.
    #[must_use]
    pub fn from_name(name: &str) -> Option<TurnMetric> {
        match name {
            "half" | "htm" => Some(TurnMetric::Half),
            "quarter" | "qtm" => Some(TurnMetric::Quarter),
            _ => None,
        }
    }
}

/// What is chosen of a definition: the move set, the metric and a projection.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Variant {
    /// The generators (default: the definition's `antipode.moves`, else its `moves`,
    /// not the derived ones).
    pub moves: Option<Vec<String>>,
    /// How moves are counted.
    pub metric: TurnMetric,
    /// The pieces kept (`CORNERS`, `EDGES:0-5`, `CORNERS+EDGES:0-3`, or a name from
    /// the definition's `antipode.projections`); the others become blanks.
    pub projection: Option<String>,
    /// Positions that differ by a whole-puzzle rotation are one position
    /// (`--up-to-rotation`): a reference piece is held home ([`symmetry::Frame`]).
    pub up_to_rotation: bool,
    /// One index per symmetry class of positions (`--symmetry`, [`classes`]).
    pub symmetry: bool,
    /// A goal set instead of the solved state (`--goal`, [`goal`]): the name of one
    /// of the definition's, or patterns with wildcards joined by `|`.
    pub goal: Option<String>,
}

impl Variant {
    /// The variant a name's options ask for (`2x2x2 --metric quarter --moves U,R`),
    /// and the name without them.
    ///
    /// # Errors
    /// [`KPuzzleError`] if the JSON is not a valid definition or its pieces cannot be
    /// ranked.
    pub fn parse(name: &str) -> Result<(&str, Variant), KPuzzleError> {
        let mut parts = name.split(" --");
        let base = parts.next().unwrap_or_default();
        let mut variant = Variant::default();
        for option in parts {
            let (key, value) = option.split_once(' ').unwrap_or((option, ""));
            match key {
                "moves" => variant.moves = Some(value.split(',').map(str::to_string).collect()),
                "metric" => {
                    variant.metric = TurnMetric::from_name(value).ok_or_else(|| {
                        KPuzzleError::Option(format!("unknown metric `{value}` (half or quarter)"))
                    })?
                }
                "orbits" => variant.projection = Some(value.to_string()),
                "up-to-rotation" if value.is_empty() => variant.up_to_rotation = true,
                "symmetry" if value.is_empty() => variant.symmetry = true,
                "goal" => variant.goal = Some(value.trim().to_string()),
                _ => return Err(KPuzzleError::Option(format!("unknown option `--{key}`"))),
            }
        }
        if variant.goal.is_some() && variant.up_to_rotation {
            return Err(KPuzzleError::Option(
                "--goal with --up-to-rotation: a goal set's rotations are not searched \
                 for; analyze it without (or with --symmetry)"
                    .into(),
            ));
        }
        Ok((base, variant))
    }

    /// The options as a name's suffix (empty for the defaults).
    #[must_use]
    pub fn suffix(&self) -> String {
        let mut out = String::new();
        if let Some(moves) = &self.moves {
            out.push_str(&format!(" --moves {}", moves.join(",")));
        }
        if self.metric != TurnMetric::Half {
            out.push_str(&format!(" --metric {}", self.metric.name()));
        }
        if let Some(projection) = &self.projection {
            out.push_str(&format!(" --orbits {projection}"));
        }
        if self.up_to_rotation {
            out.push_str(" --up-to-rotation");
        }
        if self.symmetry {
            out.push_str(" --symmetry");
        }
        if let Some(goal) = &self.goal {
            out.push_str(&format!(" --goal {goal}"));
        }
        out
    }
}

/// Why a KPuzzle could not be opened.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KPuzzleError {
    /// The definition file.
    #[error(transparent)]
    Definition(#[from] DefinitionError),
    /// A move set, metric or projection that does not fit the definition.
    #[error("{0}")]
    Option(String),
    /// The states cannot be numbered (a table is impossible; a search may still work).
    #[error("{name}: {cause}")]
    Ranking {
        /// The puzzle.
        name: String,
        /// Why.
        cause: RankingError,
    },
}

/// One move of a move set: a generator to a power.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Turn {
    /// The generator's number in the move set.
    pub generator: u8,
    /// The power (1 to the generator's order - 1).
    pub amount: u8,
    label: &'static str,
}

impl std::fmt::Display for Turn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.label)
    }
}

/// Move labels live as long as the program: each distinct text is kept once.
fn intern(text: String) -> &'static str {
    static LABELS: OnceLock<Mutex<BTreeSet<&'static str>>> = OnceLock::new();
    let mut labels = LABELS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some(&label) = labels.get(text.as_str()) {
        return label;
    }
    let label: &'static str = Box::leak(text.into_boxed_str());
    labels.insert(label);
    label
}

/// The cubing notation of `amount` turns of a move of order `order` (`R`, `R2`, `R'`).
fn turn_label(name: &str, amount: u32, order: u32) -> String {
    if amount == 1 {
        name.to_string()
    } else if amount + 1 == order {
        format!("{name}'")
    } else if 2 * amount <= order {
        format!("{name}{amount}")
    } else {
        format!("{name}{}'", order - amount)
    }
}

/// A generator of the move set.
#[derive(Debug, Clone)]
pub(crate) struct Generator {
    name: String,
    transformation: Transformation,
    pub(crate) order: u32,
}

/// A twisty puzzle: a KPuzzle definition under one move set.
#[derive(Debug, Clone)]
pub struct KPuzzle {
    base: String,
    pub(crate) definition: Arc<Definition>,
    pub(crate) variant: Variant,
    pub(crate) generators: Vec<Generator>,
    pub(crate) turns: Vec<Turn>,
    pub(crate) turn_moves: Vec<Transformation>,
    /// Bit `h` of `commutes[g]`: generators `g` and `h` commute.
    commutes: Vec<u64>,
    pub(crate) goal: Pattern,
    /// Positions whose piece is a blank in the goal (orientation not seen).
    pub(crate) layout: Result<Layout, RankingError>,
    /// The stabiliser-chain ranking, where it has fewer indices than `layout`.
    chain: Option<Arc<ChainRanking>>,
    /// Per orbit, which piece numbers the goal keeps (not blanks).
    kept: Vec<[bool; 256]>,
    /// The orbit of each position.
    orbit_index: Vec<u8>,
    tables: Arc<OnceLock<Option<MoveTables>>>,
    /// With `--symmetry` on a goal of identical pieces: the classes of patterns its
    /// indices stand for.
    pattern_classes: Option<Arc<pattern_classes::PatternClasses>>,
    /// With `--goal`: the patterns of the goal set (`goal` is then the solved state
    /// with the pieces no pattern names as blanks).
    goal_set: Option<Arc<Vec<definition::GoalPattern>>>,
}

/// The breadth-first search's move tables, one per coordinate of the index.
#[derive(Debug)]
struct MoveTables {
    coordinates: Vec<TabledCoordinate>,
}

/// A coordinate's number of values, its stride in the index and how moves change it.
#[derive(Debug)]
struct TabledCoordinate {
    size: u64,
    stride: u64,
    moves: Moved,
}

/// How the moves change a coordinate.
#[derive(Debug)]
enum Moved {
    /// By its value alone: `table[value * moves + move]` is the value after the move.
    Alone(Vec<u32>),
    /// A projection's twist, by the placement coordinate just before it:
    /// `added[placement * moves + move]` is what the move adds, `sums[twist * size +
    /// added]` the twist after it.
    ByPlacement { added: Vec<u16>, sums: Vec<u32> },
}

/// Coordinates with more values than this are not tabled (the search ranks instead).
const MAX_TABLED_VALUES: u64 = 1 << 22;

impl KPuzzle {
    /// The puzzle a definition describes under `variant`; `base` is the name it is
    /// opened by (a shipped name or a path).
    ///
    /// # Errors
    /// [`KPuzzleError`] if the definition's pieces cannot be ranked in 64 bits.
    pub fn new(
        base: &str,
        definition: Arc<Definition>,
        variant: Variant,
    ) -> Result<KPuzzle, KPuzzleError> {
        let names: Vec<String> = match (&variant.moves, &definition.default_moves) {
            (Some(names), _) | (None, Some(names)) => names.clone(),
            (None, None) => definition
                .moves
                .iter()
                .take(definition.base_moves)
                .map(|(n, _)| n.clone())
                .collect(),
        };
        let generators = generators(&definition, &names)?;
        let (turns, turn_moves) = turns(&generators, variant.metric, &definition.moduli);
        let commutes = generators
            .iter()
            .map(|a| {
                generators
                    .iter()
                    .enumerate()
                    .filter(|(_, b)| {
                        let m = &definition.moduli;
                        a.transformation.then(&b.transformation, m)
                            == b.transformation.then(&a.transformation, m)
                    })
                    .map(|(h, _)| 1u64 << h)
                    .sum()
            })
            .collect();
        let projected = match &variant.projection {
            None => None,
            Some(spec) => Some(project(&definition, spec)?),
        };
        let goal_set = match &variant.goal {
            None => None,
            Some(text) => Some(goal_patterns(&definition, text)?),
        };
        let goal = match &goal_set {
            None => projected.unwrap_or_else(|| definition.default.clone()),
            Some(patterns) => goal::reference(&definition, patterns, projected.as_ref())
                .map_err(KPuzzleError::Option)?,
        };
        let moves: Vec<&Transformation> = generators.iter().map(|g| &g.transformation).collect();
        let orbit_of = |p: usize| {
            definition
                .orbits
                .iter()
                .find(|o| (o.offset..o.offset + o.pieces).contains(&p))
                .map_or(String::new(), |o| o.name.clone())
        };
        let layout = Layout::new(&goal, &moves, &definition.moduli, orbit_of);
        let mut kept = vec![[false; 256]; definition.orbits.len()];
        let mut orbit_index = vec![0u8; definition.positions()];
        for (k, orbit) in definition.orbits.iter().enumerate() {
            for p in orbit.offset..orbit.offset + orbit.pieces {
                orbit_index[p] = k as u8;
                if goal.pieces[p] != BLANK {
                    kept[k][goal.pieces[p] as usize] = true;
                }
            }
        }
        let mut puzzle = KPuzzle {
            kept,
            orbit_index,
            base: base.to_string(),
            definition,
            variant,
            generators,
            turns,
            turn_moves,
            commutes,
            goal,
            layout,
            chain: None,
            tables: Arc::new(OnceLock::new()),
            pattern_classes: None,
            goal_set: goal_set.map(Arc::new),
        };
        puzzle.chain = puzzle.tighter_chain().map(Arc::new);
        puzzle.check_goal_set()?;
        Ok(puzzle)
    }

    /// A goal set stands for at most [`goal::MAX_GOAL_POSITIONS`] patterns, and each
    /// of its patterns for at least one position the moves reach.
    fn check_goal_set(&self) -> Result<(), KPuzzleError> {
        let Some(patterns) = &self.goal_set else {
            return Ok(());
        };
        if self.layout.is_err() {
            return Ok(());
        }
        let total: u128 = patterns
            .iter()
            .map(|p| goal::stands_for(&self.definition, &self.goal, p))
            .fold(0, u128::saturating_add);
        if total > goal::MAX_GOAL_POSITIONS {
            return Err(KPuzzleError::Option(format!(
                "--goal: the goal set stands for up to {total} positions, more than the {} \
                 a search starts from",
                goal::MAX_GOAL_POSITIONS
            )));
        }
        for pattern in patterns.iter() {
            let mut why = None;
            let mut reached = false;
            goal::expand(&self.definition, &self.goal, pattern, &mut |state| {
                match self.reachable(state) {
                    Ok(()) => reached = true,
                    Err(e) => {
                        why.get_or_insert(e);
                    }
                }
                !reached
            });
            if !reached {
                return Err(KPuzzleError::Option(format!(
                    "{}: the moves {} do not reach this goal pattern{}",
                    pattern.place,
                    self.generator_names().join(", "),
                    why.map_or(String::new(), |w| format!(": {w}"))
                )));
            }
        }
        Ok(())
    }

    /// Every position of the goal set the moves reach (the solved state alone
    /// without `--goal`), by `visit`.
    fn for_each_goal(&self, visit: &mut dyn FnMut(&Pattern)) {
        match &self.goal_set {
            None => visit(&self.goal),
            Some(patterns) => {
                for pattern in patterns.iter() {
                    goal::expand(&self.definition, &self.goal, pattern, &mut |state| {
                        if self.reachable(state).is_ok() {
                            visit(state);
                        }
                        true
                    });
                }
            }
        }
    }

    /// The indices `index` gives the goal set's positions, sorted, each once: the
    /// set's patterns expanded on all threads (a pattern's wildcards may stand for
    /// tens of millions of arrangements to test).
    pub fn goal_indices_by(&self, index: impl Fn(&Pattern) -> u64 + Sync) -> Vec<u64> {
        use rayon::prelude::*;
        let mut indices: Vec<u64> = match &self.goal_set {
            None => vec![index(&self.goal)],
            Some(patterns) => patterns
                .par_iter()
                .flat_map_iter(|pattern| {
                    let mut found = Vec::new();
                    goal::expand(&self.definition, &self.goal, pattern, &mut |state| {
                        if self.reachable(state).is_ok() {
                            found.push(index(state));
                        }
                        true
                    });
                    found.sort_unstable();
                    found.dedup();
                    found
                })
                .collect(),
        };
        indices.sort_unstable();
        indices.dedup();
        indices
    }

    /// Why `pattern` is no position the moves reach from the solved state, if it is
    /// not: a position no move changes is not as solved, or the ranking's parity and
    /// twist checks (and the stabiliser chain, where it ranks) refuse it.
    fn reachable(&self, pattern: &Pattern) -> Result<(), String> {
        if let Ok(layout) = &self.layout {
            for &p in layout.fixed() {
                let p = p as usize;
                if pattern.pieces[p] != self.goal.pieces[p]
                    || pattern.orientation[p] != self.goal.orientation[p]
                {
                    let orbit = &self.definition.orbits[self.orbit_index[p] as usize];
                    return Err(format!(
                        "{} position {} is not as solved, and no move changes it",
                        orbit.name,
                        p - orbit.offset
                    ));
                }
            }
            layout.check(pattern, &self.goal)?;
        }
        if let Some(chain) = &self.chain
            && !chain.contains(pattern)
        {
            return Err("its pieces and twists are not a product of the moves".to_string());
        }
        Ok(())
    }

    /// The goal set's patterns, if the puzzle searches from one (`--goal`).
    #[must_use]
    pub fn goal_patterns(&self) -> Option<&[definition::GoalPattern]> {
        self.goal_set.as_deref().map(Vec::as_slice)
    }

    /// The stabiliser-chain ranking when the orbit-by-orbit one leaves indices no
    /// position reaches (and the goal allows it: whole orbits of distinct pieces).
    fn tighter_chain(&self) -> Option<ChainRanking> {
        let layout = self.layout.as_ref().ok()?;
        let compact = self.compact().ok()?;
        let chain = ChainRanking::new(&self.turn_moves, &compact)?;
        (u128::from(chain.count()) < layout.count()).then_some(chain)
    }

    /// This puzzle with one index per class of `classes` (a goal of identical pieces
    /// under `--symmetry`): by their tight index where the puzzle has one, else a
    /// pattern ranks as the least rank of its class.
    #[must_use]
    pub fn with_pattern_classes(mut self, classes: pattern_classes::PatternClasses) -> KPuzzle {
        self.pattern_classes = None;
        let classes = classes.with_index(&self);
        self.variant.symmetry = classes.symmetry_count() > classes.rotation_count();
        self.pattern_classes = Some(Arc::new(classes));
        self
    }

    /// A search from `root` over classes of patterns: the classes under the symmetries
    /// that fix `root`, or the positions themselves where only the identity does.
    #[must_use]
    pub fn fixing_pattern_classes(&self, root: &Pattern) -> KPuzzle {
        let Some(classes) = &self.pattern_classes else {
            return self.clone();
        };
        let fixing = classes.fixing(root);
        if fixing.symmetry_count() > 1 {
            return self.clone().with_pattern_classes(fixing);
        }
        let mut plain = self.clone();
        plain.pattern_classes = None;
        plain.variant.symmetry = false;
        plain
    }

    /// The classes of patterns its indices stand for, if any.
    #[must_use]
    pub fn pattern_classes(&self) -> Option<&pattern_classes::PatternClasses> {
        self.pattern_classes.as_deref()
    }

    /// The tight index of its pattern classes, if it has one.
    fn pattern_index(&self) -> Option<&pattern_index::PatternIndex> {
        self.pattern_classes.as_ref()?.index()
    }

    /// The rank of a pattern by the puzzle's own ranking, whatever its class.
    pub(crate) fn plain_rank(&self, state: View<'_>) -> u64 {
        if let Some(chain) = &self.chain {
            let pattern = Pattern {
                pieces: state.pieces.to_vec(),
                orientation: state.orientation.to_vec(),
            };
            return chain.rank(&pattern);
        }
        self.layout.as_ref().expect("ranked").rank(state)
    }

    /// The stabiliser-chain ranking, when it is the one in use.
    #[must_use]
    pub fn chain_ranking(&self) -> Option<&ChainRanking> {
        self.chain.as_deref()
    }

    /// The definition as a table records it, with the ranking's version `ranking`
    /// (a puzzle of classes numbers positions its own way, and names version 1).
    #[must_use]
    pub fn definition_text(&self, ranking: &str) -> String {
        let mut text = format!("kpuzzle {}\nranking {ranking}\n", self.definition.name);
        for orbit in &self.definition.orbits {
            text.push_str(&format!(
                "orbit {} {} {}\n",
                orbit.name, orbit.pieces, orbit.orientations
            ));
        }
        text.push_str(&format!("goal {}\n", self.pattern_text(&self.goal, "; ")));
        for pattern in self.goal_patterns().unwrap_or_default() {
            text.push_str(&format!(
                "goal-pattern {}\n",
                definition::goal_text(&self.definition, pattern)
            ));
        }
        for (turn, t) in self.turns.iter().zip(&self.turn_moves) {
            text.push_str(&format!("move {turn} {:?} {:?}\n", t.permutation, t.delta));
        }
        text
    }

    /// The positions this puzzle keeps (whole orbits; a projection's blanks are left
    /// out), for symmetries: refused where a projection keeps part of an orbit or the
    /// goal is not the solved state of distinct, untwisted pieces.
    ///
    /// # Errors
    /// [`symmetry::SymmetryError`] if the puzzle's symmetries cannot be found.
    pub fn compact(&self) -> Result<symmetry::Compact, symmetry::SymmetryError> {
        let compact = self.kept()?;
        for (&p, &k) in compact.kept.iter().zip(&compact.orbit) {
            let orbit = &self.definition.orbits[k as usize];
            if self.goal.pieces[p] as usize != p - orbit.offset || self.goal.orientation[p] != 0 {
                return Err(symmetry::SymmetryError::Goal(format!(
                    "symmetries need a goal of distinct pieces in order, untwisted: {} is not",
                    orbit.name
                )));
            }
        }
        Ok(compact)
    }

    /// The positions this puzzle keeps (whole orbits; a projection's blanks are left
    /// out), whatever its goal: refused only where a projection keeps part of an orbit.
    ///
    /// # Errors
    /// [`symmetry::SymmetryError`] if a projection keeps part of an orbit.
    pub fn kept(&self) -> Result<symmetry::Compact, symmetry::SymmetryError> {
        let mut compact = symmetry::Compact {
            kept: Vec::new(),
            orbit: Vec::new(),
            moduli: Vec::new(),
        };
        for (k, orbit) in self.definition.orbits.iter().enumerate() {
            let range = orbit.offset..orbit.offset + orbit.pieces;
            let blanks = range
                .clone()
                .filter(|&p| self.goal.pieces[p] == BLANK)
                .count();
            if blanks == orbit.pieces {
                continue;
            }
            if blanks > 0 {
                return Err(symmetry::SymmetryError::Goal(format!(
                    "symmetries need whole orbits: the projection keeps part of {}",
                    orbit.name
                )));
            }
            for p in range {
                compact.kept.push(p);
                compact.orbit.push(k as u8);
                compact.moduli.push(orbit.orientations);
            }
        }
        Ok(compact)
    }

    /// The definition.
    #[must_use]
    pub fn kdefinition(&self) -> &Definition {
        &self.definition
    }

    /// The variant (move set, metric, projection).
    #[must_use]
    pub fn variant(&self) -> &Variant {
        &self.variant
    }

    /// The name without options.
    #[must_use]
    pub fn base_name(&self) -> &str {
        &self.base
    }

    /// The title.
    #[must_use]
    pub fn title(&self) -> &str {
        &self.definition.title
    }

    /// The moves of the move set.
    #[must_use]
    pub fn turns(&self) -> &[Turn] {
        &self.turns
    }

    /// The generators' names.
    #[must_use]
    pub fn generator_names(&self) -> Vec<&str> {
        self.generators.iter().map(|g| g.name.as_str()).collect()
    }

    /// The solved state (blanks where a projection drops pieces).
    #[must_use]
    pub fn goal(&self) -> &Pattern {
        &self.goal
    }

    /// The ranking, or why there is none.
    ///
    /// # Errors
    /// [`KPuzzleError`] if the orbits cannot be ranked in 64 bits.
    pub fn layout(&self) -> Result<&Layout, KPuzzleError> {
        self.layout.as_ref().map_err(|cause| KPuzzleError::Ranking {
            name: self.name(),
            cause: cause.clone(),
        })
    }

    /// The number of indices of the ranking (beyond 64 bits for the 3x3x3).
    pub fn index_count_wide(&self) -> Option<u128> {
        if let Some(chain) = &self.chain {
            return Some(chain.count().into());
        }
        self.layout.as_ref().ok().map(Layout::count)
    }

    /// The order of the group the generators generate (Schreier-Sims): the number
    /// of states they reach when all pieces are distinct.
    #[must_use]
    pub fn group_order(&self) -> u128 {
        let moves: Vec<&Transformation> =
            self.generators.iter().map(|g| &g.transformation).collect();
        group::order(&moves, &self.definition.moduli)
    }

    /// Whether generators `g` and `h` commute.
    #[must_use]
    pub fn commute(&self, g: u8, h: u8) -> bool {
        self.commutes[g as usize] >> h & 1 == 1
    }

    /// The transformation of each turn.
    #[must_use]
    pub fn turn_transformations(&self) -> &[Transformation] {
        &self.turn_moves
    }

    /// `pattern` after `turn` (blanks' orientations stay 0).
    #[must_use]
    pub fn apply(&self, pattern: &Pattern, turn: usize) -> Pattern {
        let mut after = self.turn_moves[turn].apply(pattern, &self.definition.moduli);
        self.normalize(&mut after);
        after
    }

    fn normalize(&self, pattern: &mut Pattern) {
        for (o, &piece) in pattern.orientation.iter_mut().zip(&pattern.pieces) {
            if piece == BLANK {
                *o = 0;
            }
        }
    }

    /// The pattern after a move sequence from the solved state (`R U R' U2`); any
    /// move of the definition may appear, with any amount.
    ///
    /// # Errors
    /// [`PositionError`] if the algorithm names a move the puzzle does not have.
    pub fn scramble(&self, alg: &str) -> Result<Pattern, PositionError> {
        let mut pattern = self.goal.clone();
        for token in alg.split_whitespace() {
            let (name, amount) = split_amount(token).map_err(PositionError::Malformed)?;
            let Some(t) = self.definition.find_move(name) else {
                return Err(PositionError::Malformed(format!(
                    "unknown move `{name}` (the moves of {}: {})",
                    self.definition.name,
                    self.definition
                        .moves
                        .iter()
                        .map(|(n, _)| n.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                )));
            };
            pattern =
                power(t, amount, &self.definition.moduli).apply(&pattern, &self.definition.moduli);
        }
        self.normalize(&mut pattern);
        Ok(pattern)
    }

    /// The same puzzle seen through a projection (`CORNERS`, `EDGES:0-5`, or a name
    /// from the definition): the puzzle a pattern database stores.
    ///
    /// # Errors
    /// [`KPuzzleError`] if the orbits or pieces named are not the puzzle's, or the
    /// projection cannot be ranked.
    pub fn projection(&self, spec: &str) -> Result<KPuzzle, KPuzzleError> {
        let mut variant = self.variant.clone();
        variant.projection = Some(spec.to_string());
        KPuzzle::new(&self.base, self.definition.clone(), variant)
    }

    /// `pattern` as this puzzle (a projection) sees it: dropped pieces become blanks.
    #[must_use]
    pub fn project_pattern(&self, pattern: &Pattern) -> Pattern {
        let mut out = pattern.clone();
        self.project_into(pattern, &mut out);
        out
    }

    /// [`KPuzzle::project_pattern`] into `out` (no allocation).
    pub fn project_into(&self, pattern: &Pattern, out: &mut Pattern) {
        for p in 0..pattern.pieces.len() {
            let piece = pattern.pieces[p];
            if self.kept[self.orbit_index[p] as usize][piece as usize] {
                out.pieces[p] = piece;
                out.orientation[p] = pattern.orientation[p];
            } else {
                out.pieces[p] = BLANK;
                out.orientation[p] = 0;
            }
        }
    }
}

/// The generators `names` names, each with its order.
fn generators(definition: &Definition, names: &[String]) -> Result<Vec<Generator>, KPuzzleError> {
    let option = |m: String| KPuzzleError::Option(m);
    let known = || {
        definition
            .moves
            .iter()
            .map(|(n, _)| n.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut generators: Vec<Generator> = Vec::new();
    for name in names {
        let Some(t) = definition.find_move(name) else {
            return Err(option(format!(
                "--moves: {} has no move `{name}` (its moves: {})",
                definition.name,
                known()
            )));
        };
        if generators.iter().any(|g| g.name == *name) {
            return Err(option(format!("--moves: `{name}` is named twice")));
        }
        if t.is_identity() {
            return Err(option(format!(
                "move `{name}` moves nothing: a generator must change the puzzle"
            )));
        }
        let mut order = 1;
        let mut p = t.clone();
        while !p.is_identity() {
            p = p.then(t, &definition.moduli);
            order += 1;
            if order > 256 {
                return Err(option(format!("move `{name}` has an order above 256")));
            }
        }
        generators.push(Generator {
            name: name.clone(),
            transformation: t.clone(),
            order,
        });
    }
    if generators.is_empty() || generators.len() > 64 {
        return Err(option("--moves: give 1 to 64 moves".into()));
    }
    Ok(generators)
}

/// The moves of a move set: every power of each generator (half-turn metric), or
/// only its first and its inverse (quarter-turn), with their transformations.
fn turns(
    generators: &[Generator],
    metric: TurnMetric,
    moduli: &[u8],
) -> (Vec<Turn>, Vec<Transformation>) {
    let mut turns = Vec::new();
    let mut turn_moves = Vec::new();
    for (g, generator) in generators.iter().enumerate() {
        let amounts: Vec<u32> = match metric {
            TurnMetric::Half => (1..generator.order).collect(),
            TurnMetric::Quarter => {
                let mut a = vec![1, generator.order - 1];
                a.dedup();
                a
            }
        };
        for amount in amounts {
            turns.push(Turn {
                generator: g as u8,
                amount: amount as u8,
                label: intern(turn_label(&generator.name, amount, generator.order)),
            });
            turn_moves.push(power(&generator.transformation, amount as i64, moduli));
        }
    }
    (turns, turn_moves)
}

/// The patterns `--goal` names: one of the definition's goal sets by its name, or
/// patterns written out.
fn goal_patterns(
    definition: &Definition,
    text: &str,
) -> Result<Vec<definition::GoalPattern>, KPuzzleError> {
    if let Some(set) = definition.goals.iter().find(|g| g.name == text) {
        return Ok(set.patterns.clone());
    }
    let empty = text.chars().all(|c| c == '|' || c.is_whitespace());
    if !text.contains(':') && !empty {
        let names: Vec<&str> = definition.goals.iter().map(|g| g.name.as_str()).collect();
        return Err(KPuzzleError::Option(format!(
            "--goal: {} has no goal set `{text}` ({}); or write the patterns, \
             `ORBIT: pieces / orientations; ...` with `?` for any, joined by `|`",
            definition.name,
            if names.is_empty() {
                "it names none".to_string()
            } else {
                format!("its goal sets: {}", names.join(", "))
            }
        )));
    }
    Ok(definition::parse_goal(definition, text, "--goal", "")?)
}

/// The goal of a projection: the pieces `spec` names kept, the others blanks.
/// `spec` is `ORBIT` (all its pieces) or `ORBIT:PIECES` (`0-5`, `0,2,4`), joined by
/// `+`, or a name from the definition's `antipode.projections`.
fn project(definition: &Definition, spec: &str) -> Result<Pattern, KPuzzleError> {
    let named = definition
        .projections
        .iter()
        .find(|(name, _)| name == spec)
        .map(|(_, s)| s.as_str());
    let text = named.unwrap_or(spec);
    let bad = |m: String| KPuzzleError::Option(format!("projection `{spec}`: {m}"));
    let mut keep = vec![false; definition.positions()];
    for item in text.split('+') {
        let (orbit_name, pieces) = match item.split_once(':') {
            Some((o, p)) => (o, Some(p)),
            None => (item, None),
        };
        let Some(orbit) = definition.orbit(orbit_name) else {
            let names: Vec<&str> = definition.orbits.iter().map(|o| o.name.as_str()).collect();
            let projections: Vec<&str> = definition
                .projections
                .iter()
                .map(|(n, _)| n.as_str())
                .collect();
            return Err(bad(format!(
                "no orbit `{orbit_name}` (orbits: {}{})",
                names.join(", "),
                if projections.is_empty() {
                    String::new()
                } else {
                    format!("; projections: {}", projections.join(", "))
                }
            )));
        };
        let mut wanted = vec![pieces.is_none(); orbit.pieces];
        if let Some(pieces) = pieces {
            for range in pieces.split(',') {
                let (a, b) = range.split_once('-').unwrap_or((range, range));
                let parse = |x: &str| {
                    x.trim()
                        .parse::<usize>()
                        .ok()
                        .filter(|&n| n < orbit.pieces)
                        .ok_or_else(|| {
                            bad(format!(
                                "`{x}` is not a piece of {} (0 to {})",
                                orbit.name,
                                orbit.pieces - 1
                            ))
                        })
                };
                let (a, b) = (parse(a)?, parse(b)?);
                if a > b {
                    return Err(bad(format!("`{range}` is an empty range")));
                }
                wanted[a..=b].iter_mut().for_each(|w| *w = true);
            }
        }
        for p in orbit.offset..orbit.offset + orbit.pieces {
            keep[p] |= wanted[definition.default.pieces[p] as usize];
        }
    }
    let mut goal = definition.default.clone();
    for (p, &k) in keep.iter().enumerate() {
        if !k {
            goal.pieces[p] = BLANK;
            goal.orientation[p] = 0;
        }
    }
    Ok(goal)
}

impl KPuzzle {
    /// The pattern form of a state: `ORBIT: pieces / orientations; ...`.
    fn pattern_text(&self, pattern: &Pattern, separator: &str) -> String {
        let piece = |p: usize| match pattern.pieces[p] {
            BLANK => "_".to_string(),
            x => x.to_string(),
        };
        self.definition
            .orbits_text(separator, piece, |p| pattern.orientation[p].to_string())
    }

    /// Reads the pattern form.
    fn parse_pattern(&self, text: &str) -> Result<Pattern, PositionError> {
        let mut pattern = self.goal.clone();
        let mut seen = vec![false; self.definition.orbits.len()];
        for block in text
            .split([';', '\n'])
            .map(str::trim)
            .filter(|b| !b.is_empty())
        {
            let Some((name, body)) = block.split_once(':') else {
                return Err(PositionError::Malformed(format!(
                    "`{block}`: expected ORBIT: pieces / orientations"
                )));
            };
            let name = name.trim();
            let Some(k) = self.definition.orbits.iter().position(|o| o.name == name) else {
                return Err(PositionError::UnknownPiece(name.to_string()));
            };
            seen[k] = true;
            let orbit = &self.definition.orbits[k];
            let (pieces, twists) = match body.split_once('/') {
                Some((p, t)) => (p, Some(t)),
                None => (body, None),
            };
            let size = |found: usize, what: &str| PositionError::WrongSize {
                expected: format!("{} {what} in {}", orbit.pieces, orbit.name),
                found: found.to_string(),
            };
            let pieces: Vec<&str> = pieces.split_whitespace().collect();
            if pieces.len() != orbit.pieces {
                return Err(size(pieces.len(), "pieces"));
            }
            for (i, token) in pieces.iter().enumerate() {
                pattern.pieces[orbit.offset + i] = match *token {
                    "_" => BLANK,
                    t => t
                        .parse::<u8>()
                        .ok()
                        .filter(|&x| (x as usize) < orbit.pieces)
                        .ok_or_else(|| PositionError::UnknownPiece(t.to_string()))?,
                };
            }
            match twists {
                None if orbit.orientations > 1 => {
                    return Err(PositionError::Malformed(format!(
                        "{name}: give the orientations after `/`"
                    )));
                }
                None => {}
                Some(twists) => {
                    let twists: Vec<&str> = twists.split_whitespace().collect();
                    if twists.len() != orbit.pieces {
                        return Err(size(twists.len(), "orientations"));
                    }
                    for (i, token) in twists.iter().enumerate() {
                        pattern.orientation[orbit.offset + i] = token
                            .parse::<u8>()
                            .ok()
                            .filter(|&o| o < orbit.orientations.max(1))
                            .ok_or_else(|| {
                                PositionError::Malformed(format!(
                                    "{name}: orientation `{token}` is not 0 to {}",
                                    orbit.orientations - 1
                                ))
                            })?;
                    }
                }
            }
        }
        if let Some(k) = seen.iter().position(|&s| !s) {
            return Err(PositionError::Missing(
                self.definition.orbits[k].name.clone(),
            ));
        }
        self.normalize(&mut pattern);
        Ok(pattern)
    }

    fn move_tables(&self) -> Option<&MoveTables> {
        self.tables
            .get_or_init(|| {
                if self.chain.is_some() {
                    return None;
                }
                let layout = self.layout.as_ref().ok()?;
                let coordinates = layout.coordinates()?;
                // Tables pay when they are much smaller than the index space (a
                // coordinate that is the whole index costs a search to build).
                let values: u64 = coordinates.iter().map(|c| c.size).sum();
                if coordinates.iter().any(|c| c.size > MAX_TABLED_VALUES)
                    || values > layout.count().min(u64::MAX as u128) as u64 / 4
                {
                    return None;
                }
                let (moves, goal, moduli) = (&self.turn_moves, &self.goal, &self.definition.moduli);
                let mut stride = 1u64;
                let mut out = Vec::new();
                // A placed twist's placement table, made with its own, for the
                // placement coordinate that comes next (from the last).
                let mut placements = None;
                for c in coordinates.into_iter().rev() {
                    let moved = if c.what == Split::PlacedTwist {
                        let (table, added) = layout.placement_tables(&c, moves, goal, moduli);
                        placements = Some(table);
                        let sums = layout.twist_sums(&c);
                        Moved::ByPlacement { added, sums }
                    } else if let Some(table) = placements.take() {
                        Moved::Alone(table)
                    } else {
                        Moved::Alone(layout.move_table(&c, moves, goal, moduli))
                    };
                    out.push(TabledCoordinate {
                        size: c.size,
                        stride,
                        moves: moved,
                    });
                    stride *= c.size;
                }
                out.reverse();
                Some(MoveTables { coordinates: out })
            })
            .as_ref()
    }
}

impl Notation for KPuzzle {
    type State = Pattern;

    fn name(&self) -> String {
        format!("{}{}", self.base, self.variant.suffix())
    }

    fn notation(&self) -> String {
        "a move sequence from the solved state (`R U R' U2`), or the pattern: \
         `ORBIT: pieces / orientations; ...` (`_` a blank)"
            .into()
    }

    fn parse(&self, text: &str) -> Result<Pattern, PositionError> {
        let text = text.trim();
        let pattern = if text.contains(':') {
            self.parse_pattern(text)?
        } else {
            self.scramble(text)?
        };
        self.reachable(&pattern).map_err(|why| {
            PositionError::Unsolvable(format!(
                "the moves {} do not reach it: {why}",
                self.generator_names().join(", ")
            ))
        })?;
        Ok(pattern)
    }

    fn format_line(&self, state: &Pattern) -> String {
        self.pattern_text(state, "; ")
    }

    fn render_board(&self, state: &Pattern) -> String {
        let mut out = String::new();
        for orbit in &self.definition.orbits {
            let range = orbit.offset..orbit.offset + orbit.pieces;
            let width = orbit.pieces.to_string().len().max(1);
            let row = |values: &mut dyn Iterator<Item = String>| {
                values
                    .map(|v| format!("{v:>width$}"))
                    .collect::<Vec<_>>()
                    .join(" ")
            };
            let pad = " ".repeat(orbit.name.len());
            out.push_str(&format!(
                "{}  position {}\n",
                orbit.name,
                row(&mut range.clone().map(|p| (p - orbit.offset).to_string()))
            ));
            out.push_str(&format!(
                "{pad}  piece    {}\n",
                row(
                    &mut state.pieces[range.clone()].iter().map(|&x| if x == BLANK {
                        "_".into()
                    } else {
                        x.to_string()
                    })
                )
            ));
            if orbit.orientations > 1 {
                out.push_str(&format!(
                    "{pad}  twist    {}\n",
                    row(&mut state.orientation[range].iter().map(|o| o.to_string()))
                ));
            }
        }
        out
    }
}

impl Puzzle for KPuzzle {
    type Move = Turn;

    fn definition(&self) -> String {
        // The ranking's version: tables of an older numbering do not match.
        let ranking = if self.chain.is_some() {
            "2 (stabiliser chain)"
        } else {
            "1"
        };
        let mut text = self.definition_text(ranking);
        if let Some(classes) = &self.pattern_classes {
            text.push_str(&classes.definition_text());
            if let Some(index) = classes.index() {
                text.push_str(&index.definition_text());
            }
        }
        text
    }

    fn metric_override(&self) -> Option<&'static str> {
        (self.variant.metric == TurnMetric::Quarter).then_some("quarter")
    }

    fn index_count(&self) -> u64 {
        if let Some(index) = self.pattern_index() {
            return index.index_count();
        }
        if let Some(chain) = &self.chain {
            return chain.count();
        }
        self.layout
            .as_ref()
            .ok()
            .and_then(Layout::index_count)
            .expect("a ranked KPuzzle is opened only when its indices fit in 64 bits")
    }

    fn max_neighbours(&self) -> usize {
        self.turns.len()
    }

    fn question_group(&self) -> usize {
        match self.pattern_index() {
            Some(tight) if tight.has_tables() => pattern_index::HIT_GROUP,
            _ => self.turns.len(),
        }
    }

    fn group_order(&self) -> Option<u128> {
        Some(KPuzzle::group_order(self))
    }

    fn goals(&self) -> Vec<Pattern> {
        let mut goals = Vec::new();
        self.for_each_goal(&mut |state| goals.push(state.clone()));
        goals
            .sort_unstable_by(|a, b| (&a.pieces, &a.orientation).cmp(&(&b.pieces, &b.orientation)));
        goals.dedup();
        goals
    }

    fn is_goal(&self, state: &Pattern) -> bool {
        match &self.goal_set {
            // Up to rotation the goal's class holds its rotations.
            None => {
                *state == self.goal
                    || self.pattern_classes.as_ref().is_some_and(|c| {
                        c.has_rotations() && self.rank(state) == self.rank(&self.goal)
                    })
            }
            Some(patterns) => patterns.iter().any(|p| goal::matches(p, state.view())),
        }
    }

    fn goal_summary(&self) -> String {
        self.variant.goal.clone().unwrap_or_else(|| "solved".into())
    }

    fn goal_positions(&self) -> Vec<Pattern> {
        let mut goals = self.goals();
        if let Some(classes) = self.pattern_classes.as_ref().filter(|c| c.has_rotations()) {
            let mut image = self.goal.clone();
            for k in (0..classes.symmetry_count()).filter(|&k| classes.is_rotation(k)) {
                classes.image_into(&self.goal, k, &mut image);
                goals.push(image.clone());
            }
            goals.sort_unstable_by(|a, b| {
                (&a.pieces, &a.orientation).cmp(&(&b.pieces, &b.orientation))
            });
            goals.dedup();
        }
        goals
    }

    fn carry_path_onto(&self, path: &mut [Pattern], onto: &Pattern) {
        let Some(classes) = &self.pattern_classes else {
            return;
        };
        let Some(k) = path.last().and_then(|end| classes.taking(end, onto)) else {
            return;
        };
        let mut image = onto.clone();
        for state in path {
            classes.image_into(state, k, &mut image);
            std::mem::swap(state, &mut image);
        }
    }

    fn goal_indices(&self) -> Vec<u64> {
        self.goal_indices_by(|state| self.rank(state))
    }

    fn rank(&self, state: &Pattern) -> u64 {
        if let Some(classes) = &self.pattern_classes {
            return match classes.index() {
                Some(index) => index.rank(self, &**classes, state),
                None => classes.class_rank(self, state),
            };
        }
        self.plain_rank(state.view())
    }

    fn never_reached(&self) -> u64 {
        self.pattern_classes
            .as_ref()
            .map_or(0, |c| match c.index() {
                Some(index) => index.unused(self, &**c),
                None => c.unused_ranks(),
            })
    }

    fn symmetries_fix(&self, state: &Pattern) -> bool {
        self.pattern_classes
            .as_ref()
            .is_none_or(|c| c.class_size(state) == 1)
    }

    fn class_counts(
        &self,
        classes: &[u64],
        antipodes: &[u64],
        depth_of: &(dyn Fn(u64) -> Option<u32> + Sync),
    ) -> Option<ClassCounts> {
        let counts = self.pattern_classes.as_ref()?;
        Some(counts.class_counts(self, classes, antipodes, depth_of))
    }

    fn uneven_classes(&self) -> Option<Vec<u64>> {
        let classes = self.pattern_classes.as_ref()?;
        // Without the tight index, every rank that is its class's least counts.
        Some(classes.index()?.symmetric_indices(self, &**classes))
    }

    fn unrank(&self, index: u64) -> Pattern {
        if let Some(tight) = self.pattern_index() {
            return tight.unrank(self, index);
        }
        let mut pattern = self.goal.clone();
        match &self.chain {
            Some(chain) => chain.unrank(index, &mut pattern),
            None => self
                .layout
                .as_ref()
                .expect("ranked")
                .unrank(index, &mut pattern),
        }
        pattern
    }

    fn successors(&self, state: &Pattern, out: &mut Vec<Successor<Pattern, Turn>>) {
        for (k, &turn) in self.turns.iter().enumerate() {
            out.push(Successor {
                moved: turn,
                state: self.apply(state, k),
            });
        }
    }

    fn expand_until_hit(
        &self,
        indices: &[u64],
        hit: impl Fn(u64) -> bool,
        prefetch: impl Fn(u64),
        found: impl FnMut(u64),
    ) {
        if let Some(tight) = self.pattern_index().filter(|t| t.has_tables()) {
            return tight.until_hit_by_table(indices, hit, prefetch, found);
        }
        crate::puzzle::until_hit_by_expansion(self, indices, hit, found);
    }

    fn expand_sorted(&self, indices: &[u64], mut visit: impl FnMut(u64, &[u64])) {
        if let Some(tight) = self.pattern_index() {
            if tight.is_dense() {
                return tight.expand_dense(self, indices, visit);
            }
            if tight.has_tables() {
                return tight.expand_by_table(indices, visit);
            }
        }
        if self.pattern_classes.is_some() {
            // A rank that is not its class's own is never reached: no neighbours.
            return crate::puzzle::expand_each(self, indices, |index, neighbours| {
                let own = self.rank(&self.unrank(index)) == index;
                visit(index, if own { neighbours } else { &[] });
            });
        }
        if let Some(chain) = &self.chain {
            return chain.expand_sorted(indices, visit);
        }
        let Some(tables) = self.move_tables() else {
            return crate::puzzle::expand_each(self, indices, visit);
        };
        let moves = self.turns.len();
        let mut neighbours = vec![0u64; moves];
        let mut values = [0usize; 64];
        for &index in indices {
            let mut rest = index;
            for (k, c) in tables.coordinates.iter().enumerate().rev() {
                values[k] = (rest % c.size) as usize;
                rest /= c.size;
            }
            neighbours.fill(0);
            for (k, c) in tables.coordinates.iter().enumerate() {
                let stride = c.stride;
                match &c.moves {
                    Moved::Alone(table) => {
                        let row = &table[values[k] * moves..][..moves];
                        for (n, &v) in neighbours.iter_mut().zip(row) {
                            *n += v as u64 * stride;
                        }
                    }
                    Moved::ByPlacement { added, sums } => {
                        let row = &added[values[k - 1] * moves..][..moves];
                        let sums = &sums[values[k] * c.size as usize..][..c.size as usize];
                        for (n, &a) in neighbours.iter_mut().zip(row) {
                            *n += sums[a as usize] as u64 * stride;
                        }
                    }
                }
            }
            visit(index, &neighbours);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::library::{SHIPPED, open};
    use super::*;
    use crate::puzzle::assert_consistent_at;
    use proptest::prelude::*;

    #[test]
    fn shipped_index_counts_and_group_orders() {
        // (name, indices, group order): the 3x3x3's corners 8! 3^7, edges 12! 2^11,
        // the whole cube their product halved (one parity for both); the 2x2x2 with a
        // corner fixed 7! 3^6; the Pyraminx 6!/2 2^5 3^4; the 4x4x4's labelled
        // centres all 24! (two colours rank C(24, 8) arrangements); the Compy Cube's
        // corners twist in place and its edges move in 3-cycles: 3^8 12!/2; the
        // 3-colour cube ranks its edges' three kinds C(12, 4) C(8, 4) 2^11 and its
        // corners' two C(8, 4) 3^7 (each orbit's last twist implied: every move keeps
        // the sums), its positions exactly (Norskog 2011), and is the whole cube's
        // group.
        let expected: [(&str, u128, u128); 9] = [
            ("2x2x2", 3_674_160, 3_674_160),
            ("pyraminx", 933_120, 933_120),
            ("skewb", 3_149_280, 3_149_280),
            ("compy", 1_571_364_748_800, 1_571_364_748_800),
            (
                "3x3x3",
                43_252_003_274_489_856_000,
                43_252_003_274_489_856_000,
            ),
            ("3x3x3-corners", 88_179_840, 88_179_840),
            ("3x3x3-edges", 980_995_276_800, 980_995_276_800),
            ("4x4x4-centres", 735_471, 620_448_401_733_239_439_360_000),
            (
                "3x3x3-three-colour",
                495 * 70 * 2048 * 70 * 2187,
                43_252_003_274_489_856_000,
            ),
        ];
        assert_eq!(SHIPPED.len(), expected.len());
        for (name, indices, order) in expected {
            let p = open(name).unwrap();
            assert_eq!(p.index_count_wide(), Some(indices), "{name}");
            assert_eq!(p.group_order(), order, "{name}");
        }
    }

    /// Every shipped definition under its default moves, and variants.
    static PUZZLES: std::sync::LazyLock<Vec<KPuzzle>> = std::sync::LazyLock::new(|| {
        let mut names: Vec<String> = SHIPPED
            .iter()
            .filter(|(n, _, _)| *n != "3x3x3")
            .map(|(n, _, _)| n.to_string())
            .collect();
        names.extend(
            [
                "2x2x2 --metric quarter",
                "2x2x2 --orbits CORNERS:0-3",
                "3x3x3 --orbits edges6a",
                "3x3x3 --orbits CORNERS+EDGES:0-1",
                "3x3x3-edges --orbits EDGES:3,5,7",
            ]
            .map(String::from),
        );
        names.iter().map(|n| open(n).unwrap()).collect()
    });

    proptest! {
        /// The whole cube (indices beyond 64 bits): every move is undone by its
        /// inverse, scrambles parse back from their pattern, and the search node
        /// turns as the pattern does.
        #[test]
        fn cube_moves_are_reversible(turns in proptest::collection::vec(0usize..18, 0..30)) {
            use crate::search::{SearchSpace, Solvable};
            let cube = open("3x3x3").unwrap();
            let space = cube.search_space(false);
            let mut pattern = cube.goal().clone();
            for &t in &turns {
                pattern = cube.apply(&pattern, t);
            }
            prop_assert_eq!(&cube.parse(&cube.format_line(&pattern)).unwrap(), &pattern);
            let node = space.node_of(&pattern);
            for (k, turn) in cube.turns().iter().enumerate() {
                let after = cube.apply(&pattern, k);
                let inverse = cube
                    .turns()
                    .iter()
                    .position(|u| u.generator == turn.generator
                        && (u.amount as u32 + turn.amount as u32).is_multiple_of(4))
                    .unwrap();
                prop_assert_eq!(&cube.apply(&after, inverse), &pattern);
                let children = crate::search::children(&space, &node, None);
                prop_assert_eq!(space.pattern_of(&children[k].1), after);
            }
            prop_assert_eq!(space.is_goal(&node), cube.is_goal(&pattern));
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]
        #[test]
        fn rankings_are_bijections_and_moves_reversible(seed: u64) {
            for p in PUZZLES.iter() {
                assert_consistent_at(p, seed % p.index_count());
            }
        }
    }
}
