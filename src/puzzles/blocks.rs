//! Sliding-block puzzles defined by a description file ([`description`]): Klotski,
//! Century, Goat, a design of one's own. Pieces are any polyomino, pieces of one group
//! are interchangeable, the goal is a whole position or a set of positions, and a move
//! is counted in one of three metrics ([`Metric`]).
//!
//! **Index** (the general big-piece hash): the pieces of more than one cell are placed
//! first. Every arrangement of them is enumerated once (interchangeable pieces as
//! combinations: their anchors ascending), in lexicographic order, and numbered.
//! What the remaining free cells hold, read row by row (the empty cells and the 1x1
//! pieces, interchangeable ones as one kind), is a permutation of a multiset and is
//! ranked as one ([`crate::rank::multiset`]). With `M` such permutations per
//! arrangement, `index = arrangement * M + rank`. Every legal layout has exactly one
//! index and every index is a legal layout; not every layout is reachable from the
//! goal.
//!
//! A position is held as the anchor (the top-left cell of the bounding box) of every
//! piece, group by group, each group's anchors ascending: interchangeable pieces are
//! told apart only by where they stand, and print with their group's characters in
//! reading order.

pub mod description;
mod expand;
pub mod library;
mod small;

use std::collections::HashMap;
use std::fmt;

use crate::puzzle::{Notation, PositionError, Puzzle, Successor};
pub use description::{Description, DescriptionError, Goal};
use small::SmallRanking;

/// Most pieces a puzzle may have.
pub const MAX_PIECES: usize = 64;
/// Most pieces of more than one cell (their anchors are packed 6 bits each in a key).
pub const MAX_BIG_PIECES: usize = 21;
/// Most arrangements of the big pieces (each is kept in memory, about 50 bytes).
pub const MAX_ARRANGEMENTS: usize = 1 << 24;
/// Most free cells (empty or 1x1 pieces) an arrangement of the big pieces may leave:
/// the multiset ranks must fit 64 bits.
pub const MAX_SMALL_ITEMS: usize = 20;

/// How moves are counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Metric {
    /// One piece moves one cell.
    Step,
    /// One piece moves any number of cells in one direction.
    Line,
    /// One piece moves anywhere it can reach in one continuous motion through free
    /// cells (the usual count of Klotski solutions).
    Path,
}

impl Metric {
    /// The metric named `step`, `line` or `path`.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Metric> {
        match name {
            "step" => Some(Metric::Step),
            "line" => Some(Metric::Line),
            "path" => Some(Metric::Path),
            _ => None,
        }
    }

    /// Its name.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Metric::Step => "step",
            Metric::Line => "line",
            Metric::Path => "path",
        }
    }
}

/// Why a description cannot be indexed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BlocksError {
    /// The description is malformed.
    #[error(transparent)]
    Description(#[from] DescriptionError),
    /// The layouts cannot be numbered in 64 bits, or the pieces exceed a limit.
    #[error("{file}: {message}")]
    TooLarge {
        /// The file.
        file: String,
        /// What is too large.
        message: String,
    },
}

/// A group of interchangeable pieces.
#[derive(Debug, Clone)]
pub(crate) struct Group {
    /// Their characters, in the order of the start position's reading order.
    glyphs: Vec<char>,
    /// Cells relative to the bounding box's top-left corner.
    shape: Vec<(usize, usize)>,
    /// The cell offsets of the shape from the anchor (`dr * cols + dc`).
    offsets: Vec<usize>,
    /// Height and width of the bounding box.
    size: (usize, usize),
    /// Index of its first piece in a position's anchor list.
    pub(crate) first: usize,
}

impl Group {
    pub(crate) fn count(&self) -> usize {
        self.glyphs.len()
    }

    fn is_big(&self) -> bool {
        self.shape.len() > 1
    }
}

/// A position: the anchor cell of every piece, group by group (each group ascending).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Layout {
    pub(crate) anchors: [u8; MAX_PIECES],
}

/// One move: the piece (its character before the move) and the unit steps it takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockMove {
    glyph: char,
    /// The piece's index in the layout before the move.
    pub(crate) piece: u8,
    /// The piece's anchor before and after the move.
    pub(crate) from: u8,
    pub(crate) to: u8,
    /// Directions, 2 bits each (0 up, 1 down, 2 left, 3 right), first step lowest.
    steps: u128,
    len: u8,
}

const ARROWS: [char; 4] = ['↑', '↓', '←', '→'];

impl BlockMove {
    /// Whether its first step is up or down.
    pub(crate) fn vertical(&self) -> bool {
        self.steps & 3 < 2
    }
}

impl fmt::Display for BlockMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.glyph)?;
        for k in 0..self.len {
            write!(f, "{}", ARROWS[((self.steps >> (2 * k)) & 3) as usize])?;
        }
        Ok(())
    }
}

/// A sliding-block puzzle read from a description.
#[derive(Debug, Clone)]
pub struct BlockPuzzle {
    name: String,
    title: String,
    source: String,
    rows: usize,
    pub(crate) cols: usize,
    walls: u64,
    pub(crate) metric: Metric,
    /// The metric the description names.
    described_metric: Metric,
    /// Big groups first (they form the arrangements), then 1x1 groups.
    pub(crate) groups: Vec<Group>,
    /// The group of each piece.
    group_of: Vec<u8>,
    big_groups: usize,
    pieces: usize,
    /// Anchors of the big pieces of each arrangement, flattened (`big_pieces` each).
    arrangement_anchors: Vec<u8>,
    big_pieces: usize,
    /// Cells covered by each arrangement.
    arrangement_masks: Vec<u64>,
    arrangement_of: HashMap<u128, u32>,
    /// Multiset counts of what the free cells hold: empty cells, then each 1x1 group.
    small_counts: Vec<u8>,
    /// The rank of what the free cells hold.
    small: SmallRanking,
    /// Each cell's neighbouring cells (up, down, left, right).
    around: Vec<Vec<u8>>,
    per_arrangement: u64,
    start: Layout,
    pub(crate) goal_layout: Option<Layout>,
    /// Goal conditions as (group, anchor cell).
    pub(crate) goal_places: Vec<(usize, u8)>,
}

/// The version of the index numbering, in [`Puzzle::definition`]: a table written
/// under another numbering is refused. 2: the empty cells are a combination even when
/// there is only one (version 1 ordered a lone empty cell with the distinct pieces).
const RANKING_VERSION: u32 = 2;

const DIRECTIONS: [(isize, isize); 4] = [(-1, 0), (1, 0), (0, -1), (0, 1)];

/// The description's groups of interchangeable pieces: big ones first, each in order
/// of first appearance, its pieces in order of their first cell.
fn groups_of(d: &Description) -> Vec<Group> {
    let cols = d.cols;
    let mut order: Vec<&Vec<usize>> = d.groups.iter().collect();
    order.sort_by_key(|g| (d.pieces[g[0]].cells.len() == 1, g[0]));
    let mut groups = Vec::new();
    let mut first = 0;
    for members in order {
        let mut members = members.clone();
        members.sort_by_key(|&k| d.pieces[k].cells[0]);
        let shape = description::shape_of(&d.pieces[members[0]].cells, cols);
        let size = (
            shape.iter().map(|s| s.0).max().unwrap_or(0) + 1,
            shape.iter().map(|s| s.1).max().unwrap_or(0) + 1,
        );
        groups.push(Group {
            glyphs: members.iter().map(|&k| d.pieces[k].glyph).collect(),
            offsets: shape.iter().map(|&(r, c)| r * cols + c).collect(),
            shape,
            size,
            first,
        });
        first += members.len();
    }
    groups
}

/// The counts the small ranking permutes: empty cells, then each group of 1x1
/// pieces; refused when they fill more cells than 64 bits can rank.
fn small_counts(d: &Description, big: &[Group], small: &[Group]) -> Result<Vec<u8>, String> {
    let cells = d.rows * d.cols;
    let covered_big: usize = big.iter().map(|g| g.count() * g.shape.len()).sum();
    let small_items = cells - d.walls.len() - covered_big;
    if small_items > MAX_SMALL_ITEMS {
        return Err(format!(
            "the 1x1 pieces and empty cells fill {small_items} cells; at most \
             {MAX_SMALL_ITEMS} can be ranked in 64 bits"
        ));
    }
    let empty = cells - d.walls.len() - d.pieces.iter().map(|p| p.cells.len()).sum::<usize>();
    let mut counts = vec![empty as u8];
    counts.extend(small.iter().map(|g| g.count() as u8));
    Ok(counts)
}

impl BlockPuzzle {
    /// Reads a description (`file` names it in errors) and builds its index.
    ///
    /// # Errors
    /// [`BlocksError`] if the text is not a valid description (the error names its
    /// line) or the puzzle is too large to rank.
    ///
    /// ```
    /// use antipode::Puzzle;
    /// use antipode::puzzles::blocks::BlockPuzzle;
    ///
    /// let text = "name = \"tiny\"\nboard = \"\"\"\nAA.\nB..\n\"\"\"\ngoal = { piece = \"A\", row = 1, col = 1 }\n";
    /// let puzzle = BlockPuzzle::from_text("tiny.toml", text).unwrap();
    /// // The domino in one of 4 places, the 1x1 piece in one of the 4 free cells.
    /// assert_eq!(puzzle.index_count(), 4 * 4);
    /// ```
    pub fn from_text(file: &str, text: &str) -> Result<BlockPuzzle, BlocksError> {
        let description = description::parse(file, text)?;
        BlockPuzzle::new(file, description)
    }

    /// Builds the index of a checked description.
    ///
    /// # Errors
    /// [`BlocksError`] if the pieces do not fit the board, overlap, or the puzzle is
    /// too large to rank.
    pub fn new(file: &str, d: Description) -> Result<BlockPuzzle, BlocksError> {
        let too_large = |message: String| BlocksError::TooLarge {
            file: file.into(),
            message,
        };
        if d.pieces.len() > MAX_PIECES {
            return Err(too_large(format!(
                "{} pieces; at most {MAX_PIECES} are supported",
                d.pieces.len()
            )));
        }
        let groups = groups_of(&d);
        let big_groups = groups.iter().take_while(|g| g.is_big()).count();
        let big_pieces: usize = groups[..big_groups].iter().map(Group::count).sum();
        if big_pieces > MAX_BIG_PIECES {
            return Err(too_large(format!(
                "{big_pieces} pieces of more than one cell; at most {MAX_BIG_PIECES} are supported"
            )));
        }
        let small_counts =
            small_counts(&d, &groups[..big_groups], &groups[big_groups..]).map_err(too_large)?;
        let small = SmallRanking::new(&small_counts);
        let group_of = groups
            .iter()
            .enumerate()
            .flat_map(|(k, g)| std::iter::repeat_n(k as u8, g.count()))
            .collect();
        let grid = crate::grid::Grid::new(d.rows, d.cols);
        let mut puzzle = BlockPuzzle {
            name: d.name.clone(),
            title: d.title.clone(),
            source: d.source.clone(),
            rows: d.rows,
            cols: d.cols,
            walls: d.walls.iter().fold(0u64, |m, &c| m | 1 << c),
            metric: d.metric,
            described_metric: d.metric,
            groups,
            group_of,
            big_groups,
            pieces: d.pieces.len(),
            arrangement_anchors: Vec::new(),
            big_pieces,
            arrangement_masks: Vec::new(),
            arrangement_of: HashMap::new(),
            small_counts,
            per_arrangement: small.total(),
            small,
            around: (0..grid.cells())
                .map(|c| grid.neighbours(c).map(|n| n as u8).collect())
                .collect(),
            start: Layout {
                anchors: [0; MAX_PIECES],
            },
            goal_layout: None,
            goal_places: Vec::new(),
        };
        if !puzzle.enumerate_arrangements() {
            return Err(too_large(format!(
                "the pieces of more than one cell have more than {} arrangements; the \
                 index keeps them all in memory",
                crate::units::thousands(MAX_ARRANGEMENTS as u64)
            )));
        }
        let total = puzzle.arrangement_masks.len() as u128 * puzzle.per_arrangement as u128;
        if total > u64::MAX as u128 {
            return Err(too_large(format!(
                "{total} layouts do not fit a 64-bit index"
            )));
        }
        puzzle.set_start_and_goal(&d).map_err(too_large)?;
        Ok(puzzle)
    }

    /// The start (the description's board) and the goal, as layouts and places.
    fn set_start_and_goal(&mut self, d: &Description) -> Result<(), String> {
        self.start = self
            .layout_of(&d.pieces)
            .map_err(|e| format!("the board: {e}"))?;
        match &d.goal {
            Goal::Position(drawn) => {
                self.goal_layout = Some(
                    self.layout_of(drawn)
                        .map_err(|e| format!("the goal: {e}"))?,
                );
            }
            Goal::Placed(places) => {
                for &(glyph, cell) in places {
                    let group = self
                        .group_of_glyph(glyph)
                        .expect("checked by the description");
                    self.goal_places.push((group, cell as u8));
                }
            }
        }
        Ok(())
    }

    /// The readable title.
    #[must_use]
    pub fn title(&self) -> &str {
        &self.title
    }

    /// Where the layout comes from.
    #[must_use]
    pub fn source(&self) -> &str {
        &self.source
    }

    /// The move metric.
    #[must_use]
    pub fn metric(&self) -> Metric {
        self.metric
    }

    /// The same puzzle counted in another metric.
    #[must_use]
    pub fn with_metric(mut self, metric: Metric) -> BlockPuzzle {
        self.metric = metric;
        self
    }

    /// The number of arrangements of the pieces of more than one cell.
    #[must_use]
    pub fn arrangements(&self) -> usize {
        self.arrangement_masks.len()
    }

    fn group_of_glyph(&self, glyph: char) -> Option<usize> {
        self.groups.iter().position(|g| g.glyphs.contains(&glyph))
    }

    /// The cells a group's piece covers at `anchor`, if it fits the board's frame
    /// (walls are not checked).
    fn cover(&self, group: &Group, anchor: usize) -> Option<u64> {
        let (r, c) = (anchor / self.cols, anchor % self.cols);
        if r + group.size.0 > self.rows || c + group.size.1 > self.cols {
            return None;
        }
        Some(
            group
                .offsets
                .iter()
                .fold(0u64, |m, &o| m | 1 << (anchor + o)),
        )
    }

    /// Every arrangement of the big pieces, in lexicographic order of their anchors;
    /// false if there are more than [`MAX_ARRANGEMENTS`].
    fn enumerate_arrangements(&mut self) -> bool {
        let placements: Vec<Vec<(u8, u64)>> = self.groups[..self.big_groups]
            .iter()
            .map(|g| {
                (0..self.rows * self.cols)
                    .filter_map(|a| self.cover(g, a).map(|m| (a as u8, m)))
                    .filter(|&(_, m)| m & self.walls == 0)
                    .collect()
            })
            .collect();
        let counts: Vec<usize> = self.groups[..self.big_groups]
            .iter()
            .map(Group::count)
            .collect();
        let mut placer = Placer {
            placements: &placements,
            counts: &counts,
            anchors: Vec::with_capacity(self.big_pieces),
            out_anchors: Vec::new(),
            out_masks: Vec::new(),
            exceeded: false,
        };
        placer.place(0, 0, 0, self.walls);
        if placer.exceeded {
            return false;
        }
        let (out_anchors, out_masks) = (placer.out_anchors, placer.out_masks);
        self.arrangement_of = out_masks
            .iter()
            .enumerate()
            .map(|(k, _)| {
                let key = pack(&out_anchors[k * self.big_pieces..(k + 1) * self.big_pieces]);
                (key, k as u32)
            })
            .collect();
        self.arrangement_anchors = out_anchors;
        self.arrangement_masks = out_masks;
        true
    }

    /// The pieces of a drawn position, from the cells of each character. A character
    /// of a group of interchangeable pieces may stand for several of them (the seeds
    /// write Goat's two bars both as `8`): each connected region of it is one piece,
    /// which must have the group's shape.
    fn pieces_drawn(
        &self,
        cells_of: std::collections::BTreeMap<char, Vec<usize>>,
    ) -> Result<Vec<description::DrawnPiece>, PositionError> {
        let mut drawn = Vec::new();
        let mut per_group = vec![0usize; self.groups.len()];
        for (glyph, cells) in cells_of {
            let Some(group) = self.group_of_glyph(glyph) else {
                return Err(PositionError::UnknownPiece(glyph.to_string()));
            };
            let g = &self.groups[group];
            let regions = if g.count() > 1 {
                description::components(&cells, self.cols)
            } else {
                vec![cells]
            };
            for cells in regions {
                let shape = description::shape_of(&cells, self.cols);
                if shape != g.shape || !description::connected(&cells, self.cols) {
                    return Err(PositionError::Malformed(format!(
                        "piece `{glyph}` does not have its shape{}",
                        if g.count() > 1 {
                            " (each connected region of one character is one piece)"
                        } else {
                            ""
                        }
                    )));
                }
                per_group[group] += 1;
                if per_group[group] > g.count() {
                    return Err(PositionError::Duplicate(glyph.to_string()));
                }
                drawn.push(description::DrawnPiece { glyph, cells });
            }
        }
        for (g, &found) in self.groups.iter().zip(&per_group) {
            if found < g.count() {
                let glyph = g
                    .glyphs
                    .iter()
                    .find(|&&glyph| !drawn.iter().any(|d| d.glyph == glyph))
                    .unwrap_or(&g.glyphs[0]);
                return Err(PositionError::Missing(glyph.to_string()));
            }
        }
        Ok(drawn)
    }

    /// The layout of drawn pieces (each glyph once, of its group's shape).
    fn layout_of(&self, drawn: &[description::DrawnPiece]) -> Result<Layout, String> {
        let mut anchors = [0u8; MAX_PIECES];
        let mut filled = vec![0usize; self.groups.len()];
        for piece in drawn {
            let group = self
                .group_of_glyph(piece.glyph)
                .ok_or_else(|| format!("unknown piece `{}`", piece.glyph))?;
            let (r, c) = description::corner_of(&piece.cells, self.cols);
            let g = &self.groups[group];
            anchors[g.first + filled[group]] = (r * self.cols + c) as u8;
            filled[group] += 1;
        }
        for (group, g) in self.groups.iter().enumerate() {
            anchors[g.first..g.first + g.count()].sort_unstable();
            if filled[group] != g.count() {
                return Err(format!(
                    "piece `{}` is missing",
                    g.glyphs[filled[group].min(g.count() - 1)]
                ));
            }
        }
        Ok(Layout { anchors })
    }

    /// `owner[cell]`: the piece on a cell, `EMPTY` or `WALL`.
    fn owners(&self, layout: &Layout) -> [u8; 64] {
        let mut owner = [EMPTY; 64];
        for (cell, slot) in owner.iter_mut().enumerate().take(self.rows * self.cols) {
            if self.walls >> cell & 1 == 1 {
                *slot = WALL;
            }
        }
        for g in &self.groups {
            for k in 0..g.count() {
                let anchor = layout.anchors[g.first + k] as usize;
                for &o in &g.offsets {
                    owner[anchor + o] = (g.first + k) as u8;
                }
            }
        }
        owner
    }

    #[inline]
    pub(crate) fn group_of_piece(&self, piece: usize) -> usize {
        self.group_of[piece] as usize
    }

    /// The layout after piece `piece` moves to `anchor`, its group re-sorted.
    fn moved(&self, layout: &Layout, piece: usize, anchor: u8) -> Layout {
        let mut next = *layout;
        next.anchors[piece] = anchor;
        let g = &self.groups[self.group_of_piece(piece)];
        next.anchors[g.first..g.first + g.count()].sort_unstable();
        next
    }

    /// The character piece `piece` prints with in `layout`: its group's characters in
    /// the reading order of the group's anchors (which are ascending).
    fn glyph(&self, piece: usize) -> char {
        let g = &self.groups[self.group_of_piece(piece)];
        g.glyphs[piece - g.first]
    }

    /// Where piece `piece` (at `anchor`) can go, by the puzzle's metric: calls
    /// `found(target anchor, unit steps, step count)` for each place. No allocation.
    fn destinations(
        &self,
        owner: &[u8; 64],
        piece: usize,
        anchor: usize,
        mut found: impl FnMut(u8, u128, u8),
    ) {
        let g = &self.groups[self.group_of_piece(piece)];
        let (r0, c0) = ((anchor / self.cols) as isize, (anchor % self.cols) as isize);
        // Whether the piece fits with its anchor at (r, c), its own cells counting as free.
        let fits = |r: isize, c: isize| -> bool {
            if r < 0 || c < 0 {
                return false;
            }
            let (r, c) = (r as usize, c as usize);
            if r + g.size.0 > self.rows || c + g.size.1 > self.cols {
                return false;
            }
            let at = r * self.cols + c;
            g.offsets.iter().all(|&o| {
                let who = owner[at + o];
                who == EMPTY || who as usize == piece
            })
        };
        match self.metric {
            Metric::Step | Metric::Line => {
                for (d, &(dr, dc)) in DIRECTIONS.iter().enumerate() {
                    let (mut r, mut c, mut len, mut steps) = (r0, c0, 0u8, 0u128);
                    loop {
                        r += dr;
                        c += dc;
                        if !fits(r, c) {
                            break;
                        }
                        steps |= (d as u128) << (2 * len);
                        len += 1;
                        found((r as usize * self.cols + c as usize) as u8, steps, len);
                        if self.metric == Metric::Step {
                            break;
                        }
                    }
                }
            }
            Metric::Path => {
                // Breadth-first over the piece's own positions: shortest ways first. A
                // piece has at most one position per cell, so the queue fits 64 entries.
                let mut seen = 1u64 << anchor;
                let mut queue = [(0isize, 0isize, 0u128, 0u8); 64];
                queue[0] = (r0, c0, 0, 0);
                let (mut k, mut queued) = (0, 1);
                while k < queued {
                    let (r, c, steps, len) = queue[k];
                    k += 1;
                    for (d, &(dr, dc)) in DIRECTIONS.iter().enumerate() {
                        let (nr, nc) = (r + dr, c + dc);
                        if !fits(nr, nc) {
                            continue;
                        }
                        let at = nr as usize * self.cols + nc as usize;
                        if seen >> at & 1 == 1 {
                            continue;
                        }
                        seen |= 1 << at;
                        let steps = steps | (d as u128) << (2 * len);
                        queue[queued] = (nr, nc, steps, len + 1);
                        queued += 1;
                        found(at as u8, steps, len + 1);
                    }
                }
            }
        }
    }

    /// Calls `visit(move, layout after it)` for every move from `layout`, without
    /// allocating (the successors, the IDA* expansion and the per-state expansion of
    /// the line and path metrics all come here).
    pub(crate) fn for_each_successor(
        &self,
        layout: &Layout,
        mut visit: impl FnMut(BlockMove, Layout),
    ) {
        let owner = self.owners(layout);
        // Only a piece next to an empty cell can move (in every metric, a move starts
        // with a step into one); the others are skipped, the order kept.
        let mut movable = 0u64;
        for (cell, &who) in owner.iter().enumerate().take(self.rows * self.cols) {
            if who == EMPTY {
                for &n in &self.around[cell] {
                    let next = owner[n as usize];
                    if (next as usize) < self.pieces {
                        movable |= 1 << next;
                    }
                }
            }
        }
        for piece in 0..self.pieces {
            if movable >> piece & 1 == 0 {
                continue;
            }
            let anchor = layout.anchors[piece] as usize;
            let glyph = self.glyph(piece);
            self.destinations(&owner, piece, anchor, |target, steps, len| {
                let moved = BlockMove {
                    glyph,
                    piece: piece as u8,
                    from: anchor as u8,
                    to: target,
                    steps,
                    len,
                };
                visit(moved, self.moved(layout, piece, target));
            });
        }
    }

    /// The index of the arrangement of a layout's big pieces.
    fn arrangement_index(&self, layout: &Layout) -> u64 {
        self.arrangement_of[&pack(&layout.anchors[..self.big_pieces])] as u64
    }

    /// What the free cells of a layout hold, in cell order: 0 empty, `1 + k` the k-th
    /// 1x1 group.
    fn small_items(&self, layout: &Layout, mask: u64, out: &mut [u8; 64]) -> usize {
        let mut at_cell = [0u8; 64];
        for (k, g) in self.groups[self.big_groups..].iter().enumerate() {
            for j in 0..g.count() {
                at_cell[layout.anchors[g.first + j] as usize] = (k + 1) as u8;
            }
        }
        let mut n = 0;
        for (cell, &item) in at_cell.iter().enumerate().take(self.rows * self.cols) {
            if (mask | self.walls) >> cell & 1 == 0 {
                out[n] = item;
                n += 1;
            }
        }
        n
    }
}

impl Notation for BlockPuzzle {
    type State = Layout;

    fn name(&self) -> String {
        self.name.clone()
    }

    fn notation(&self) -> String {
        let shared: Vec<String> = self
            .groups
            .iter()
            .filter(|g| g.count() > 1)
            .map(|g| g.glyphs.iter().collect())
            .collect();
        let mut text = String::from(
            "rows separated by `/`, one character per cell: `.` empty, `#` wall, each piece \
             its own character",
        );
        if !shared.is_empty() {
            text.push_str(&format!(
                " (interchangeable pieces {} in reading order of their top-left cells); \
                 input also takes one character for all pieces of such a group",
                shared.join(", ")
            ));
        }
        if self.group_of_glyph('0').is_none() {
            text.push_str("; input also takes `0` for an empty cell");
        }
        text
    }

    fn start(&self) -> Option<Layout> {
        Some(self.start)
    }

    fn parse(&self, text: &str) -> Result<Layout, PositionError> {
        let rows: Vec<&str> = text
            .split(['/', '\n'])
            .map(str::trim)
            .filter(|r| !r.is_empty())
            .collect();
        let widths: Vec<usize> = rows.iter().map(|r| r.chars().count()).collect();
        if rows.len() != self.rows || widths.iter().any(|&w| w != self.cols) {
            return Err(PositionError::WrongSize {
                expected: format!("{} rows of {} cells", self.rows, self.cols),
                found: format!(
                    "{} row(s) of {} cells",
                    rows.len(),
                    widths
                        .iter()
                        .map(usize::to_string)
                        .collect::<Vec<_>>()
                        .join("/")
                ),
            });
        }
        let mut cells_of: std::collections::BTreeMap<char, Vec<usize>> = Default::default();
        for (r, row) in rows.iter().enumerate() {
            for (c, glyph) in row.chars().enumerate() {
                let cell = r * self.cols + c;
                let wall = self.walls >> cell & 1 == 1;
                match glyph {
                    '#' if wall => {}
                    '#' => {
                        return Err(PositionError::Malformed(format!(
                            "a wall at row {r}, column {c}, where the board has none"
                        )));
                    }
                    _ if wall => {
                        return Err(PositionError::Malformed(format!(
                            "`{glyph}` at row {r}, column {c} stands on a wall"
                        )));
                    }
                    '.' => {}
                    // The seeds write an empty cell as 0.
                    '0' if self.group_of_glyph('0').is_none() => {}
                    g => cells_of.entry(g).or_default().push(cell),
                }
            }
        }
        let drawn = self.pieces_drawn(cells_of)?;
        self.layout_of(&drawn).map_err(PositionError::Malformed)
    }

    fn format_line(&self, layout: &Layout) -> String {
        self.render_board(layout).trim_end().replace('\n', "/")
    }

    fn render_board(&self, layout: &Layout) -> String {
        let owner = self.owners(layout);
        let mut text = String::new();
        for r in 0..self.rows {
            for c in 0..self.cols {
                text.push(match owner[r * self.cols + c] {
                    EMPTY => '.',
                    WALL => '#',
                    piece => self.glyph(piece as usize),
                });
            }
            text.push('\n');
        }
        text
    }
}

impl Puzzle for BlockPuzzle {
    type Move = BlockMove;

    fn metric_override(&self) -> Option<&'static str> {
        (self.metric != self.described_metric).then(|| self.metric.name())
    }

    /// The canonical text of everything the depth table depends on: the board, the
    /// groups (shapes and characters, in index order), the metric and the goal.
    fn definition(&self) -> String {
        let mut text = format!(
            "blocks {}\nranking {RANKING_VERSION}\nboard {}x{}\nwalls {:x}\nmetric {}\n",
            self.name,
            self.rows,
            self.cols,
            self.walls,
            self.metric.name()
        );
        for g in &self.groups {
            let shape: Vec<String> = g.shape.iter().map(|(r, c)| format!("{r},{c}")).collect();
            text.push_str(&format!(
                "group {} shape {}\n",
                g.glyphs.iter().collect::<String>(),
                shape.join(" ")
            ));
        }
        match &self.goal_layout {
            Some(goal) => text.push_str(&format!("goal {}\n", self.format_line(goal))),
            None => {
                for &(group, cell) in &self.goal_places {
                    text.push_str(&format!("goal group {group} at {cell}\n"));
                }
            }
        }
        text
    }

    fn index_count(&self) -> u64 {
        self.arrangement_masks.len() as u64 * self.per_arrangement
    }

    fn max_neighbours(&self) -> usize {
        self.pieces * self.rows * self.cols
    }

    fn goals(&self) -> Vec<Layout> {
        match &self.goal_layout {
            Some(goal) => vec![*goal],
            None => self
                .goal_indices()
                .iter()
                .map(|&i| self.unrank(i))
                .collect(),
        }
    }

    fn is_goal(&self, layout: &Layout) -> bool {
        match &self.goal_layout {
            Some(goal) => layout == goal,
            None => self.goal_places.iter().all(|&(group, cell)| {
                let g = &self.groups[group];
                layout.anchors[g.first..g.first + g.count()].contains(&cell)
            }),
        }
    }

    /// The goal position, or the placed pieces: `B@3,1` (row, column of the top-left
    /// corner), without building the goal set.
    fn goal_summary(&self) -> String {
        match &self.goal_layout {
            Some(goal) => self.format_line(goal),
            None => self
                .goal_places
                .iter()
                .map(|&(group, cell)| {
                    let (r, c) = (cell as usize / self.cols, cell as usize % self.cols);
                    let glyphs: String = self.groups[group].glyphs.iter().collect();
                    format!("{glyphs}@{r},{c}")
                })
                .collect::<Vec<_>>()
                .join(" "),
        }
    }

    /// Without building states where the conditions are on big pieces only: every
    /// layout of a qualifying arrangement is a goal, a run of `M` indices.
    fn goal_indices(&self) -> Vec<u64> {
        if let Some(goal) = &self.goal_layout {
            return vec![self.rank(goal)];
        }
        let big_conditions: Vec<(usize, u8)> = self
            .goal_places
            .iter()
            .copied()
            .filter(|&(group, _)| group < self.big_groups)
            .collect();
        let small_only = big_conditions.len() < self.goal_places.len();
        let mut indices = Vec::new();
        for arrangement in 0..self.arrangement_masks.len() {
            let anchors = &self.arrangement_anchors
                [arrangement * self.big_pieces..(arrangement + 1) * self.big_pieces];
            let qualifies = big_conditions.iter().all(|&(group, cell)| {
                let g = &self.groups[group];
                anchors[g.first..g.first + g.count()].contains(&cell)
            });
            if !qualifies {
                continue;
            }
            let base = arrangement as u64 * self.per_arrangement;
            if small_only {
                for r in 0..self.per_arrangement {
                    if self.is_goal(&self.unrank(base + r)) {
                        indices.push(base + r);
                    }
                }
            } else {
                indices.extend(base..base + self.per_arrangement);
            }
        }
        indices
    }

    fn rank(&self, layout: &Layout) -> u64 {
        let arrangement = self.arrangement_index(layout);
        let mask = self.arrangement_masks[arrangement as usize];
        let mut items = [0u8; 64];
        self.small_items(layout, mask, &mut items);
        arrangement * self.per_arrangement + self.small.rank(&items)
    }

    fn unrank(&self, index: u64) -> Layout {
        let arrangement = (index / self.per_arrangement) as usize;
        let mut anchors = [0u8; MAX_PIECES];
        anchors[..self.big_pieces].copy_from_slice(
            &self.arrangement_anchors
                [arrangement * self.big_pieces..(arrangement + 1) * self.big_pieces],
        );
        let mask = self.arrangement_masks[arrangement] | self.walls;
        let n = self.small_counts.iter().map(|&c| c as usize).sum::<usize>();
        let mut items = [0u8; 64];
        self.small
            .unrank(index % self.per_arrangement, &mut items[..n]);
        let mut filled = vec![0usize; self.groups.len()];
        let mut k = 0;
        for cell in 0..self.rows * self.cols {
            if mask >> cell & 1 == 1 {
                continue;
            }
            let item = items[k] as usize;
            k += 1;
            if item > 0 {
                let group = self.big_groups + item - 1;
                anchors[self.groups[group].first + filled[group]] = cell as u8;
                filled[group] += 1;
            }
        }
        Layout { anchors }
    }

    /// The step metric walks runs of one arrangement (`expand`); the other metrics
    /// expand state by state.
    fn expand_sorted(&self, indices: &[u64], visit: impl FnMut(u64, &[u64])) {
        match self.metric {
            Metric::Step => self.expand_steps(indices, visit),
            Metric::Line | Metric::Path => crate::puzzle::expand_each(self, indices, visit),
        }
    }

    fn successors(&self, layout: &Layout, out: &mut Vec<Successor<Layout, BlockMove>>) {
        self.for_each_successor(layout, |moved, state| out.push(Successor { moved, state }));
    }
}

const EMPTY: u8 = u8::MAX;
const WALL: u8 = u8::MAX - 1;

/// Packs anchors (each below 64) 6 bits apiece.
fn pack(anchors: &[u8]) -> u128 {
    anchors.iter().fold(0u128, |key, &a| key << 6 | a as u128)
}

/// Enumerates the arrangements of the big pieces, group by group, each group's
/// placements as combinations (ascending), skipping overlaps.
struct Placer<'a> {
    placements: &'a [Vec<(u8, u64)>],
    counts: &'a [usize],
    anchors: Vec<u8>,
    out_anchors: Vec<u8>,
    out_masks: Vec<u64>,
    /// Set once more than [`MAX_ARRANGEMENTS`] were found: the enumeration stops.
    exceeded: bool,
}

impl Placer<'_> {
    /// Places the rest of group `group` from its placement `from` on, then the next
    /// groups; `placed` pieces of the group stand already, covering `used`.
    fn place(&mut self, group: usize, placed: usize, from: usize, used: u64) {
        if self.exceeded {
            return;
        }
        if group == self.placements.len() {
            if self.out_masks.len() == MAX_ARRANGEMENTS {
                self.exceeded = true;
                return;
            }
            self.out_anchors.extend_from_slice(&self.anchors);
            self.out_masks.push(used);
            return;
        }
        if placed == self.counts[group] {
            self.place(group + 1, 0, 0, used);
            return;
        }
        for k in from..self.placements[group].len() {
            let (anchor, mask) = self.placements[group][k];
            if mask & used != 0 {
                continue;
            }
            self.anchors.push(anchor);
            self.place(group, placed + 1, k + 1, used | mask);
            self.anchors.pop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const KLOTSKI: &str = include_str!("blocks/library/klotski.toml");

    /// Every shipped puzzle in every metric, and a board with walls and L-shaped pieces.
    fn all_puzzles() -> Vec<BlockPuzzle> {
        let mut puzzles = Vec::new();
        let walled = "name = \"walled\"\nboard = \"\"\"\n#AB.\nAAB.\nc.D#\n\"\"\"\n\
                      goal = { piece = \"A\", row = 0, col = 2 }\n";
        let mut texts: Vec<(&str, &str)> =
            library::SHIPPED.iter().map(|&(_, f, t)| (f, t)).collect();
        texts.push(("walled.toml", walled));
        for (file, text) in texts {
            for metric in [Metric::Step, Metric::Line, Metric::Path] {
                puzzles.push(
                    BlockPuzzle::from_text(file, text)
                        .unwrap()
                        .with_metric(metric),
                );
            }
        }
        puzzles
    }

    proptest! {
        #[test]
        fn ranking_notation_and_reversible_moves(seed in any::<u64>()) {
            for p in all_puzzles() {
                crate::puzzle::assert_consistent_at(&p, seed % p.index_count());
            }
        }
    }

    proptest! {
        /// The step metric's fast path, walking runs of indices (consecutive ones, and
        /// ones with gaps that step, seek or leave a block), gives every state the
        /// neighbours that ranking its successors gives.
        #[test]
        fn runs_of_indices_expand_like_single_states(seed in any::<u64>(), gaps in proptest::collection::vec(1u64..40, 600)) {
            for p in all_puzzles().into_iter().filter(|p| p.metric() == Metric::Step) {
                let mut indices = vec![seed % p.index_count()];
                for &gap in &gaps {
                    let next = indices[indices.len() - 1] + if gap > 20 { 1 } else { gap };
                    if next >= p.index_count() {
                        break;
                    }
                    indices.push(next);
                }
                let mut expected = Vec::new();
                crate::puzzle::expand_each(&p, &indices, |i, n| {
                    let mut n = n.to_vec();
                    n.sort_unstable();
                    expected.push((i, n));
                });
                let mut found = Vec::new();
                p.expand_sorted(&indices, |i, n| {
                    let mut n = n.to_vec();
                    n.sort_unstable();
                    found.push((i, n));
                });
                prop_assert_eq!(found, expected, "{}", p.name());
            }
        }
    }

    #[test]
    fn walls_and_l_shaped_pieces() {
        let p = &all_puzzles()[all_puzzles().len() - 1];
        // The L tromino A fits 2 places (walls at 0 and 11), B (1x2) 4, then c D and
        // two empty cells over the 5 free cells: 5!/2! = 60... per arrangement.
        let start = p.start().unwrap();
        assert_eq!(p.format_line(&start), "#AB./AAB./c.D#");
        assert_eq!(p.unrank(p.rank(&start)), start);
        assert!(p.parse("AAB./#AB./c.D#").is_err(), "a piece on a wall");
        assert!(p.parse("#AB./AAB./cD.#").is_ok());
    }

    fn klotski(metric: Metric) -> BlockPuzzle {
        BlockPuzzle::from_text("klotski.toml", KLOTSKI)
            .unwrap()
            .with_metric(metric)
    }

    #[test]
    fn klotski_index_space() {
        let p = klotski(Metric::Path);
        // 2x2, 2x1 and four 1x2 placed in 4,392 ways; 15 ways for 4 soldiers and 2 blanks.
        assert_eq!(p.index_count(), 65_880);
        assert_eq!(p.per_arrangement, 15);
        let start = p.start().unwrap();
        assert_eq!(p.format_line(&start), "ABBC/ABBC/DEEF/DGHF/I..J");
        assert_eq!(p.unrank(p.rank(&start)), start);
    }
}
