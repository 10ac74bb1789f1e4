//! The one abstraction every puzzle implements, and the errors its positions can raise.
//!
//! A puzzle knows its rules and its ranking (a minimal perfect hash of its reachable
//! states onto `0..index_count()`), nothing about files or threads. The BFS engine
//! works on indices only; the state type is for parsing, printing and solvers.

use std::fmt::Debug;
use std::ops::Range;

/// Why a position could not be accepted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PositionError {
    /// The text is not a position at all (bad separators, empty rows, ...).
    #[error("malformed position: {0}")]
    Malformed(String),
    /// The position has the wrong number of rows, columns or cells.
    #[error("wrong size: expected {expected}, found {found}")]
    WrongSize {
        /// What the puzzle needs.
        expected: String,
        /// What the text had.
        found: String,
    },
    /// A token names no piece of this puzzle.
    #[error("unknown piece `{0}`")]
    UnknownPiece(String),
    /// A piece appears more often than the puzzle has it.
    #[error("piece `{0}` appears too often")]
    Duplicate(String),
    /// A piece of the puzzle is absent.
    #[error("piece `{0}` is missing")]
    Missing(String),
    /// Well formed, but not in the goal's part of the state space.
    #[error("unsolvable position: {0}")]
    Unsolvable(String),
    /// A search from this position over symmetry classes whose symmetries do not all
    /// fix it: it would measure the distance to the position's images too.
    #[error(
        "{0} is not fixed by every symmetry of the classes: search from it under the \
         symmetries that fix it"
    )]
    NotFixed(String),
}

/// A contiguous run of indices whose states all share one colour of a two-colouring of
/// the state graph (every move changes the colour), or `None` if the puzzle has no
/// such colouring. The engine uses colours to scan only the half of the states that can
/// hold a given level.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segment {
    /// The indices of this segment.
    pub indices: Range<u64>,
    /// Colour (0 or 1) of every state in the segment, if the graph is bipartite.
    pub colour: Option<u8>,
}

/// One legal move: what moved (in the puzzle's own notation) and where it leads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Successor<S, M> {
    /// The piece that moved, as the puzzle prints it in a solution.
    pub moved: M,
    /// The position after the move.
    pub state: S,
}

/// A move of puzzle `P` with the position it leads to.
pub type Step<P> = Successor<<P as Notation>::State, <P as Puzzle>::Move>;

/// What stands behind the indices of a puzzle whose indices are symmetry classes of
/// positions (`--symmetry`): the positions per depth, from the classes per depth.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ClassCounts {
    /// The order of the symmetry group the classes are taken under.
    pub symmetries: usize,
    /// The order of the puzzle's own symmetry group: larger than `symmetries` where
    /// a search from a position used the subgroup that fixes it.
    pub puzzle_symmetries: usize,
    /// Every position the moves reach.
    pub positions: u128,
    /// `positions_by_depth[d]`: the positions at distance `d`.
    pub positions_by_depth: Vec<u128>,
    /// The positions at the largest distance.
    pub antipode_positions: u128,
    /// Burnside's count of classes (the average number of positions a symmetry fixes),
    /// which equals the classes the search reached.
    pub burnside_classes: u128,
    /// The positions in the class of each antipode listed.
    pub antipode_class_sizes: Vec<u64>,
}

/// A puzzle whose legal states are numbered by a minimal perfect hash.
///
/// Moves must be reversible (the state graph is undirected): the BFS runs from the goal
/// set, so a state's distance to the nearest goal equals that goal's distance to it.
///
/// **Rankings are bijections.** Every index in `0..index_count()` is a legal state and
/// [`Puzzle::unrank`] is total; legal states need not be reachable from the goal set
/// (a sliding-block puzzle's layouts fall into many components), and reports keep
/// `indices` and `reachable` apart. A ranking with holes (indices that are no state)
/// is not allowed: the 2-bit store has no spare code to mark them, and every ranking
/// in scope (permutations, big-piece offsets, partial permutations) has none.
pub trait Puzzle: Notation + Sync {
    /// What a solution lists for one move (the moved piece, in the seeds' notation).
    type Move: Copy + PartialEq + Debug + std::fmt::Display + Send + Sync;

    /// A canonical text that defines the puzzle completely (rules, ranking, goal set):
    /// two puzzles with the same definition have the same depth table. Table files
    /// record its digest. The default is the name and the goal set's one-line forms,
    /// enough for puzzles whose name fixes the rules.
    fn definition(&self) -> String {
        let mut text = format!("puzzle {}\n", self.name());
        for goal in self.goals() {
            text.push_str("goal ");
            text.push_str(&self.format_line(&goal));
            text.push('\n');
        }
        text
    }

    /// The move metric's name when it is not the one the puzzle's own description
    /// sets (a sliding-block puzzle counted in another metric: `step`, `line`, `path`);
    /// default table paths name it.
    fn metric_override(&self) -> Option<&'static str> {
        None
    }

    /// The order of the permutation group the moves generate, where the puzzle is a
    /// group and knows it (twisty puzzles: Schreier-Sims); reports show it beside the
    /// states reached.
    fn group_order(&self) -> Option<u128> {
        None
    }

    /// Where indices are symmetry classes: the positions behind the classes at each
    /// depth (`classes[d]`) and behind the antipodes listed (`antipodes`, indices),
    /// given the exact depth of any index (`depth_of`). `None` (the default) where an
    /// index is one position.
    fn class_counts(
        &self,
        _classes: &[u64],
        _antipodes: &[u64],
        _depth_of: &(dyn Fn(u64) -> Option<u32> + Sync),
    ) -> Option<ClassCounts> {
        None
    }

    /// Where indices are classes: the indices whose depths [`Puzzle::class_counts`]
    /// asks `depth_of` for (the classes holding fewer positions than there are
    /// symmetries), sorted, so that a search whose depths are spread over several
    /// processes can gather them first. `None` (the default) where it asks for every
    /// index or the indices are positions.
    fn uneven_classes(&self) -> Option<Vec<u64>> {
        None
    }

    /// The number of indices: every reachable state has exactly one in `0..index_count()`.
    fn index_count(&self) -> u64;

    /// How many indices are known never to be reached: a class index's slots that are
    /// not the one their class is numbered by (a state the ranking numbers twice). The
    /// direction rule leaves them out of the states a level can still find, and the
    /// search ends when the others are all found. Default 0.
    fn never_reached(&self) -> u64 {
        0
    }

    /// How many of the [`Puzzle::never_reached`] indices a bottom-up level still pays
    /// to check, for the direction rule: a puzzle that remembers the ones a level
    /// found skips those after for next to nothing. Default: all of them.
    fn never_reached_unchecked(&self) -> u64 {
        self.never_reached()
    }

    /// How many times the work of expanding a state top-down exceeds that of a
    /// bottom-up question, which stops at the first neighbour in the frontier: the
    /// direction rule weighs the frontier by it. 1 (the default) where a neighbour
    /// costs little beside its mark; more where each is canonicalised (classes).
    fn bottom_up_gain(&self) -> u64 {
        1
    }

    /// How many neighbours a bottom-up question ([`Puzzle::expand_until_hit`])
    /// computes before it reads their answers: all of them (the default, a whole
    /// expansion), fewer where it stops at the first hit. The level clock counts a
    /// question's work by it.
    fn question_group(&self) -> usize {
        self.max_neighbours()
    }

    /// Whether every symmetry the index is taken under fixes `state`, so that its
    /// index stands for `state` alone: a search from `state` ([`Rooted`]) then
    /// measures the distance to `state`, not to the nearest of its images. True (the
    /// default) where an index is one position.
    fn symmetries_fix(&self, state: &Self::State) -> bool {
        let _ = state;
        true
    }

    /// The most neighbours any state can have.
    fn max_neighbours(&self) -> usize;

    /// The goal set: every state at distance 0, where the BFS starts. Never empty.
    fn goals(&self) -> Vec<Self::State>;

    /// Whether `state` is in the goal set.
    fn is_goal(&self, state: &Self::State) -> bool;

    /// Every position at distance 0: the goal set and, where an index stands for a
    /// class holding a goal's rotations (positions up to rotation), those rotations
    /// too. A search over positions, not indices, starts from these (bidirectional
    /// BFS). The goal set (the default) where an index is one position.
    fn goal_positions(&self) -> Vec<Self::State> {
        self.goals()
    }

    /// Rewrites `path`, whose last state is at distance 0 in the class of `onto`
    /// without being `onto` (a rotation of the goal, where indices are positions up
    /// to rotation), by the symmetry that takes that state to `onto`: the path then
    /// ends at `onto` and starts in its first state's class, each step still one
    /// move. Where an index is one position (the default) there is nothing to do.
    fn carry_path_onto(&self, path: &mut [Self::State], onto: &Self::State) {
        let _ = (path, onto);
    }

    /// A short readable form of the goal set (table headers and reports show it): the
    /// goal's one-line form, or `N goal states`. Puzzles with large goal sets override
    /// it to describe the set without building it.
    fn goal_summary(&self) -> String {
        match self.goals().as_slice() {
            [one] => self.format_line(one),
            many => format!("{} goal states", many.len()),
        }
    }

    /// The indices of the goal set, ascending and without repeats. Puzzles with large
    /// goal sets may override it to rank without building states.
    fn goal_indices(&self) -> Vec<u64> {
        let mut indices: Vec<u64> = self.goals().iter().map(|g| self.rank(g)).collect();
        indices.sort_unstable();
        indices.dedup();
        indices
    }

    /// The index of a legal state.
    fn rank(&self, state: &Self::State) -> u64;

    /// The state with the given index (`index < index_count()`).
    fn unrank(&self, index: u64) -> Self::State;

    /// Appends every position one move away from `state` to `out`.
    fn successors(&self, state: &Self::State, out: &mut Vec<Successor<Self::State, Self::Move>>);

    /// The index ranges of the puzzle, with their colour if the state graph is bipartite.
    fn segments(&self) -> Vec<Segment> {
        vec![Segment {
            indices: 0..self.index_count(),
            colour: None,
        }]
    }

    /// Calls `visit(index, neighbours)` for every index of `indices` (ascending), with
    /// the indices of the states one move away.
    ///
    /// The default unranks each state on its own. Puzzles override it to walk runs of
    /// consecutive indices incrementally, which is where the BFS spends its time.
    fn expand_sorted(&self, indices: &[u64], visit: impl FnMut(u64, &[u64])) {
        expand_each(self, indices, visit);
    }

    /// Calls `found(index)` once for every index of `indices` (ascending) that has a
    /// neighbour for which `hit` is true, in any order: a bottom-up level's question,
    /// "is this state next to the frontier?". `prefetch` may be called on a neighbour
    /// before `hit` is (a hint that its answer will be read soon).
    ///
    /// The default expands each state whole ([`Puzzle::expand_sorted`]); a puzzle whose
    /// neighbours cost much each (symmetry classes) stops at the first hit.
    fn expand_until_hit(
        &self,
        indices: &[u64],
        hit: impl Fn(u64) -> bool,
        prefetch: impl Fn(u64),
        found: impl FnMut(u64),
    ) {
        let _ = prefetch;
        until_hit_by_expansion(self, indices, hit, found);
    }

    /// [`Puzzle::expand_sorted`] with a value threaded through the calls: `visit`
    /// takes it and returns it, and the last one is returned. A caller whose visit
    /// counts, or appends to a buffer, keeps that state in registers this way: state
    /// a closure reaches through a reference goes back to memory after every write to
    /// a depth store, which the compiler cannot tell apart from it.
    ///
    /// The default goes through [`Puzzle::expand_sorted`], taking the value out
    /// between calls (hence `A: Default`); the sliding puzzles' expansion threads it
    /// itself.
    ///
    /// ```
    /// use antipode::{Puzzle, puzzles::SlidingPuzzle};
    ///
    /// let eight = SlidingPuzzle::new(3, 3).unwrap();
    /// let goal = eight.goal_indices();
    /// let moves = eight.expand_sorted_fold(&goal, 0, |count, _, neighbours| {
    ///     count + neighbours.len()
    /// });
    /// assert_eq!(moves, 2); // the blank in a corner
    /// ```
    fn expand_sorted_fold<A: Default>(
        &self,
        indices: &[u64],
        init: A,
        mut visit: impl FnMut(A, u64, &[u64]) -> A,
    ) -> A {
        let mut value = init;
        self.expand_sorted(indices, |index, neighbours| {
            value = visit(std::mem::take(&mut value), index, neighbours);
        });
        value
    }

    /// The moves that add one constant to every index of the segment holding `index`
    /// ([`Puzzle::segments`]): for each listed `delta`, every index `i` of that segment
    /// has the neighbour `i + delta`, inside the index space. On a sliding board the
    /// blank's sideways moves keep the order of the tiles, so its index moves by one
    /// blank cell's block. A level can mark these neighbours many at a time while it
    /// scans its frontier, and expand the rest with
    /// [`Puzzle::expand_untranslated_fold`]. The default is none.
    fn translations(&self, index: u64) -> Translations {
        let _ = index;
        Translations::default()
    }

    /// The lane of the segment holding `index`, on a puzzle whose moves keep to lanes:
    /// every neighbour [`Puzzle::expand_untranslated_fold`] lists lies in the same
    /// lane, every translated one ([`Puzzle::translations`]) in an adjacent lane (one
    /// more or one less). On a sliding board with translations, the blank's column:
    /// vertical moves keep it, sideways ones change it by one. A dense level on more
    /// than one thread can then give each lane to one thread at a time (the even lanes,
    /// then the odd ones), which marks its entries without atomic read-modify-writes.
    /// The default is `None` (no lanes).
    fn lane(&self, index: u64) -> Option<usize> {
        let _ = index;
        None
    }

    /// The number of equal parts of the index space (part `p` starts at `p` times
    /// the space over the parts) in which moves change a state's offset little: a
    /// search on disk gives each of its blocks the same slice of offsets of every
    /// part, so that most neighbours lie in their state's block and few wait in a
    /// bucket on disk ([`crate::engine::OnDisk`]). On a sliding board, the blank's
    /// cells: a sideways move keeps the offset, most vertical ones move it a little.
    /// The default is 1: blocks are contiguous slices of the space.
    fn disk_regions(&self) -> u64 {
        1
    }

    /// [`Puzzle::expand_sorted_fold`] without the neighbours that
    /// [`Puzzle::translations`] lists for each index (the default lists none, so this
    /// is the whole expansion).
    fn expand_untranslated_fold<A: Default>(
        &self,
        indices: &[u64],
        init: A,
        visit: impl FnMut(A, u64, &[u64]) -> A,
    ) -> A {
        self.expand_sorted_fold(indices, init, visit)
    }
}

/// Up to four index shifts that are moves for a whole segment ([`Puzzle::translations`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Translations {
    deltas: [i64; 4],
    len: usize,
}

impl Translations {
    /// The shifts `deltas` (at most four).
    ///
    /// # Panics
    /// If there are more than four.
    #[must_use]
    pub fn new(deltas: &[i64]) -> Translations {
        let mut translations = Translations::default();
        translations.deltas[..deltas.len()].copy_from_slice(deltas);
        translations.len = deltas.len();
        translations
    }

    /// The shifts.
    #[must_use]
    pub fn as_slice(&self) -> &[i64] {
        &self.deltas[..self.len]
    }
}

/// [`Puzzle::expand_until_hit`] by whole expansions ([`Puzzle::expand_sorted`]): the
/// default, and the fallback of puzzles whose fast path does not cover every case.
pub fn until_hit_by_expansion<P: Puzzle + ?Sized>(
    puzzle: &P,
    indices: &[u64],
    hit: impl Fn(u64) -> bool,
    mut found: impl FnMut(u64),
) {
    puzzle.expand_sorted(indices, |index, neighbours| {
        if neighbours.iter().any(|&n| hit(n)) {
            found(index);
        }
    });
}

/// The per-state expansion: unrank, list the successors, rank each. The default of
/// [`Puzzle::expand_sorted`], and the fallback of puzzles whose fast path does not
/// cover every size.
pub fn expand_each<P: Puzzle + ?Sized>(
    puzzle: &P,
    indices: &[u64],
    mut visit: impl FnMut(u64, &[u64]),
) {
    let mut successors = Vec::with_capacity(puzzle.max_neighbours());
    let mut neighbours = Vec::with_capacity(puzzle.max_neighbours());
    for &index in indices {
        let state = puzzle.unrank(index);
        successors.clear();
        puzzle.successors(&state, &mut successors);
        neighbours.clear();
        neighbours.extend(successors.iter().map(|s| puzzle.rank(&s.state)));
        visit(index, &neighbours);
    }
}

/// Checks every property a puzzle must have at one index, panicking with the index on
/// failure: rank and unrank are inverse, the one-line form parses back, every move is
/// reversible and lands inside the index space, and [`Puzzle::expand_sorted`] gives the
/// same neighbours as [`Puzzle::successors`]. The property tests of every puzzle call it
/// on random indices.
#[cfg(test)]
pub(crate) fn assert_consistent_at<P: Puzzle>(puzzle: &P, index: u64) {
    let state = puzzle.unrank(index);
    assert_eq!(puzzle.rank(&state), index, "rank(unrank({index}))");
    assert_eq!(
        puzzle.parse(&puzzle.format_line(&state)).as_ref(),
        Ok(&state),
        "index {index}: the one-line form does not parse back"
    );
    let mut successors = Vec::new();
    puzzle.successors(&state, &mut successors);
    let mut expected = Vec::new();
    for s in &successors {
        let mut back = Vec::new();
        puzzle.successors(&s.state, &mut back);
        assert!(
            back.iter().any(|b| b.state == state),
            "index {index}: a move cannot be undone"
        );
        let rank = puzzle.rank(&s.state);
        assert!(
            rank < puzzle.index_count(),
            "index {index}: a neighbour ranks out of range"
        );
        expected.push(rank);
    }
    let mut fast = Vec::new();
    puzzle.expand_sorted(&[index], |i, n| {
        assert_eq!(i, index);
        fast.extend_from_slice(n);
    });
    expected.sort_unstable();
    fast.sort_unstable();
    assert_eq!(
        fast, expected,
        "index {index}: expand_sorted disagrees with successors"
    );
    // The fold visits the same states with the same neighbours, in order, and hands
    // every call the value the previous one returned.
    let run: Vec<u64> = (index..puzzle.index_count()).take(3).collect();
    let mut visited = Vec::new();
    puzzle.expand_sorted(&run, |i, n| visited.push((i, n.to_vec())));
    let folded = puzzle.expand_sorted_fold(&run, Vec::new(), |mut so_far, i, n| {
        so_far.push((i, n.to_vec()));
        so_far
    });
    assert_eq!(
        folded, visited,
        "index {index}: expand_sorted_fold disagrees with expand_sorted"
    );
    // The translated moves and the rest are the whole expansion, and every index of
    // the segment has the same translations.
    let translations = puzzle.translations(index);
    let mut split = puzzle.expand_untranslated_fold(&[index], Vec::new(), |mut n, _, found| {
        n.extend_from_slice(found);
        n
    });
    split.extend(
        translations
            .as_slice()
            .iter()
            .map(|&delta| index.wrapping_add_signed(delta)),
    );
    split.sort_unstable();
    assert_eq!(
        split, expected,
        "index {index}: the translations and the untranslated expansion are not the moves"
    );
    // Untranslated moves keep to the lane, translated ones go to an adjacent lane.
    if let Some(lane) = puzzle.lane(index) {
        puzzle.expand_untranslated_fold(&[index], (), |(), _, found| {
            for &n in found {
                assert_eq!(
                    puzzle.lane(n),
                    Some(lane),
                    "index {index}: untranslated neighbour {n} in another lane"
                );
            }
        });
        for &delta in translations.as_slice() {
            let n = index.wrapping_add_signed(delta);
            let other = puzzle.lane(n);
            assert!(
                other.is_some_and(|o| o.abs_diff(lane) == 1),
                "index {index}: translated neighbour {n} in lane {other:?}, not next to {lane}"
            );
        }
    }
    let segment = puzzle
        .segments()
        .into_iter()
        .find(|s| s.indices.contains(&index))
        .expect("every index lies in a segment");
    for end in [segment.indices.start, segment.indices.end - 1] {
        assert_eq!(
            puzzle.translations(end),
            translations,
            "index {index}: the translations differ within its segment"
        );
        for &delta in translations.as_slice() {
            assert!(
                end.checked_add_signed(delta)
                    .is_some_and(|n| n < puzzle.index_count()),
                "index {end}: translated out of the index space"
            );
        }
    }
}

/// Reading and writing positions: what parsing a command's input and printing its
/// solutions needs of a puzzle. Every [`Puzzle`] has it; so do boards that are too
/// large to rank but are solved with pattern databases
/// ([`crate::puzzles::sliding::BoardShape`]).
pub trait Notation {
    /// A position.
    type State: Clone + Eq + std::hash::Hash + Debug + Send + Sync;

    /// The puzzle's name as the command line accepts it (`8puzzle`, `sliding:3x4`, ...).
    fn name(&self) -> String;

    /// The puzzle's own start position (the puzzle as sold, or the seed's), if it has one.
    fn start(&self) -> Option<Self::State> {
        None
    }

    /// Reads a position in the puzzle's text syntax and checks that it is legal (and,
    /// where the puzzle can tell cheaply, that it can reach the goal set).
    ///
    /// # Errors
    /// [`PositionError`] if the text is not a position of this puzzle.
    fn parse(&self, text: &str) -> Result<Self::State, PositionError>;

    /// The one-line form of a position, which [`crate::Notation::parse`] accepts.
    fn format_line(&self, state: &Self::State) -> String;

    /// A multi-line drawing of a position.
    fn render_board(&self, state: &Self::State) -> String;

    /// How positions are written, in words: the canonical one-line form that output
    /// uses, and what else input accepts (JSON reports carry it).
    fn notation(&self) -> String {
        "one line, rows separated by `/`".into()
    }
}

/// A puzzle searched from one position instead of its goal set: a BFS over it gives
/// the position's component (every state it can reach, "reachable") and the states
/// farthest from it (the "antipodes"), what a designer asks of a start.
///
/// Every method of [`Puzzle`] and [`Notation`] is forwarded to the puzzle but the
/// goal set's (a test holds the list to the traits). Over symmetry classes the root
/// must be fixed by every symmetry ([`Puzzle::symmetries_fix`]), else
/// [`Rooted::new`] refuses it: the classes of the subgroup that fixes it
/// ([`crate::puzzles::kpuzzle::classes::KClasses::fixing`]) are searched instead.
///
/// ```
/// use antipode::{Notation, Puzzle, puzzle::Rooted, analysis, driver::Control, puzzles::SlidingPuzzle};
///
/// let eight = SlidingPuzzle::new(3, 3).unwrap();
/// let start = eight.parse("867254301").unwrap();
/// let from = Rooted::new(&eight, start).unwrap();
/// let a = analysis::analyze(&from, 0, &Control::default()).unwrap();
/// assert_eq!(a.reachable, 181_440);
/// assert_eq!(a.gods_number, 31); // the usual goal is among the farthest
/// ```
pub struct Rooted<'a, P: Puzzle> {
    puzzle: &'a P,
    root: P::State,
}

impl<'a, P: Puzzle> Rooted<'a, P> {
    /// `puzzle` searched from `root`.
    ///
    /// # Errors
    /// [`PositionError::NotFixed`] if the puzzle's indices are classes under
    /// symmetries that do not all fix `root`.
    pub fn new(puzzle: &'a P, root: P::State) -> Result<Self, PositionError> {
        if !puzzle.symmetries_fix(&root) {
            return Err(PositionError::NotFixed(puzzle.format_line(&root)));
        }
        Ok(Rooted { puzzle, root })
    }
}

impl<P: Puzzle> Notation for Rooted<'_, P> {
    type State = P::State;

    fn name(&self) -> String {
        format!(
            "{} from {}",
            self.puzzle.name(),
            self.puzzle.format_line(&self.root)
        )
    }

    fn notation(&self) -> String {
        self.puzzle.notation()
    }

    fn start(&self) -> Option<P::State> {
        self.puzzle.start()
    }

    fn parse(&self, text: &str) -> Result<P::State, PositionError> {
        self.puzzle.parse(text)
    }

    fn format_line(&self, state: &P::State) -> String {
        self.puzzle.format_line(state)
    }

    fn render_board(&self, state: &P::State) -> String {
        self.puzzle.render_board(state)
    }
}

/// Forwards every method but the goal set's (`definition` adds the root).
impl<P: Puzzle> Puzzle for Rooted<'_, P> {
    type Move = P::Move;

    fn definition(&self) -> String {
        let mut text = self.puzzle.definition();
        text.push_str("searched from ");
        text.push_str(&self.puzzle.format_line(&self.root));
        text.push('\n');
        text
    }
    fn metric_override(&self) -> Option<&'static str> {
        self.puzzle.metric_override()
    }
    fn group_order(&self) -> Option<u128> {
        self.puzzle.group_order()
    }
    fn class_counts(
        &self,
        classes: &[u64],
        antipodes: &[u64],
        depth_of: &(dyn Fn(u64) -> Option<u32> + Sync),
    ) -> Option<ClassCounts> {
        self.puzzle.class_counts(classes, antipodes, depth_of)
    }
    fn uneven_classes(&self) -> Option<Vec<u64>> {
        self.puzzle.uneven_classes()
    }
    fn index_count(&self) -> u64 {
        self.puzzle.index_count()
    }
    fn never_reached(&self) -> u64 {
        self.puzzle.never_reached()
    }
    fn never_reached_unchecked(&self) -> u64 {
        self.puzzle.never_reached_unchecked()
    }
    fn bottom_up_gain(&self) -> u64 {
        self.puzzle.bottom_up_gain()
    }
    fn question_group(&self) -> usize {
        self.puzzle.question_group()
    }
    fn symmetries_fix(&self, state: &P::State) -> bool {
        self.puzzle.symmetries_fix(state)
    }
    fn max_neighbours(&self) -> usize {
        self.puzzle.max_neighbours()
    }
    fn goals(&self) -> Vec<P::State> {
        vec![self.root.clone()]
    }
    fn is_goal(&self, state: &P::State) -> bool {
        // An index may stand for a class holding the root's rotations.
        *state == self.root || self.puzzle.rank(state) == self.puzzle.rank(&self.root)
    }
    fn goal_positions(&self) -> Vec<P::State> {
        // The root alone: its rotations are found by rank (`is_goal`).
        self.goals()
    }
    fn carry_path_onto(&self, path: &mut [P::State], onto: &P::State) {
        self.puzzle.carry_path_onto(path, onto);
    }
    fn goal_summary(&self) -> String {
        self.puzzle.format_line(&self.root)
    }
    fn goal_indices(&self) -> Vec<u64> {
        vec![self.puzzle.rank(&self.root)]
    }
    fn rank(&self, state: &P::State) -> u64 {
        self.puzzle.rank(state)
    }
    fn unrank(&self, index: u64) -> P::State {
        self.puzzle.unrank(index)
    }
    fn successors(&self, state: &P::State, out: &mut Vec<Successor<P::State, P::Move>>) {
        self.puzzle.successors(state, out)
    }
    fn segments(&self) -> Vec<Segment> {
        self.puzzle.segments()
    }
    fn expand_sorted(&self, indices: &[u64], visit: impl FnMut(u64, &[u64])) {
        self.puzzle.expand_sorted(indices, visit)
    }
    fn expand_sorted_fold<A: Default>(
        &self,
        indices: &[u64],
        init: A,
        visit: impl FnMut(A, u64, &[u64]) -> A,
    ) -> A {
        self.puzzle.expand_sorted_fold(indices, init, visit)
    }
    fn expand_until_hit(
        &self,
        indices: &[u64],
        hit: impl Fn(u64) -> bool,
        prefetch: impl Fn(u64),
        found: impl FnMut(u64),
    ) {
        self.puzzle.expand_until_hit(indices, hit, prefetch, found);
    }
    fn translations(&self, index: u64) -> Translations {
        self.puzzle.translations(index)
    }
    fn lane(&self, index: u64) -> Option<usize> {
        self.puzzle.lane(index)
    }
    fn disk_regions(&self) -> u64 {
        self.puzzle.disk_regions()
    }
    fn expand_untranslated_fold<A: Default>(
        &self,
        indices: &[u64],
        init: A,
        visit: impl FnMut(A, u64, &[u64]) -> A,
    ) -> A {
        self.puzzle.expand_untranslated_fold(indices, init, visit)
    }
}
