//! A pattern: some tiles of a sliding board, where they may stand, and the board's
//! geometry as bit masks (one bit per cell, at most 32 cells).

use crate::grid::Grid;
use crate::rank::partial::Placements;

use super::PdbError;

/// Most cells a pattern's board may have (one `u32` bit each).
pub const MAX_CELLS: usize = 32;

/// Some tiles of an `rows x cols` sliding board and their goal cells.
///
/// A placement (where the pattern's tiles stand, `places[i]` the cell of the `i`-th
/// tile of [`Pattern::tiles`]) is indexed by [`Placements`]; the other tiles and the
/// blank are not part of it.
#[derive(Debug, Clone)]
pub struct Pattern {
    rows: usize,
    cols: usize,
    /// The pattern's tiles, in the order of a placement's entries.
    tiles: Vec<u8>,
    /// The goal cell of each pattern tile.
    homes: Vec<u8>,
    /// The goal's blank cell.
    blank_home: u8,
    placements: Placements,
    /// `around[cell]`: the cells next to `cell`, as a mask.
    around: [u32; MAX_CELLS],
    /// Every cell of the board.
    all: u32,
    /// Cells not in the first column, and not in the last.
    not_first_column: u32,
    not_last_column: u32,
}

impl Pattern {
    /// The pattern of `tiles` on an `rows x cols` board whose goal has tile
    /// `goal[cell]` on each cell (0 the blank).
    ///
    /// # Errors
    /// [`PdbError`] if the tiles are not the board's, repeat, or are too many to rank.
    pub fn new(rows: usize, cols: usize, goal: &[u8], tiles: &[u8]) -> Result<Pattern, PdbError> {
        let cells = rows * cols;
        if cells > MAX_CELLS || goal.len() != cells || rows < 2 || cols < 2 {
            return Err(PdbError::Board { rows, cols });
        }
        let mut homes = Vec::with_capacity(tiles.len());
        for (i, &tile) in tiles.iter().enumerate() {
            if tile == 0 || tiles[..i].contains(&tile) {
                return Err(PdbError::Tiles(format!(
                    "tile {tile} is {} in the pattern",
                    if tile == 0 { "the blank" } else { "twice" }
                )));
            }
            let home = goal
                .iter()
                .position(|&t| t == tile)
                .ok_or_else(|| PdbError::Tiles(format!("there is no tile {tile}")))?;
            homes.push(home as u8);
        }
        // The blank and at least one other tile stay outside (with only one, half the
        // placements belong to no solvable position: their entries are 0).
        if tiles.is_empty() || tiles.len() + 2 > cells {
            return Err(PdbError::Tiles(format!(
                "a pattern takes 1 to {} of the {} tiles",
                cells - 2,
                cells - 1
            )));
        }
        let blank_home = goal.iter().position(|&t| t == 0).ok_or(PdbError::Goal)? as u8;
        if Placements::checked_count(cells, tiles.len()).is_none() {
            return Err(PdbError::Tiles(format!(
                "{} tiles on {cells} cells have more placements than a u64 counts",
                tiles.len()
            )));
        }
        let all = if cells == 32 {
            u32::MAX
        } else {
            (1u32 << cells) - 1
        };
        let mut first_column = 0u32;
        for r in 0..rows {
            first_column |= 1 << (r * cols);
        }
        let last_column = first_column << (cols - 1);
        let grid = Grid::new(rows, cols);
        let mut around = [0u32; MAX_CELLS];
        for (cell, around) in around.iter_mut().enumerate().take(cells) {
            *around = grid.neighbours(cell).fold(0, |mask, next| mask | 1 << next);
        }
        Ok(Pattern {
            rows,
            cols,
            tiles: tiles.to_vec(),
            homes,
            blank_home,
            placements: Placements::new(cells, tiles.len()),
            around,
            all,
            not_first_column: all & !first_column,
            not_last_column: all & !last_column,
        })
    }

    /// Board rows.
    #[must_use]
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Board columns.
    #[must_use]
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// Board cells.
    #[must_use]
    pub fn cells(&self) -> usize {
        self.rows * self.cols
    }

    /// The pattern's tiles, in placement order.
    #[must_use]
    pub fn tiles(&self) -> &[u8] {
        &self.tiles
    }

    /// The goal cell of each pattern tile.
    #[must_use]
    pub fn homes(&self) -> &[u8] {
        &self.homes
    }

    /// The goal's blank cell.
    #[must_use]
    pub fn blank_home(&self) -> usize {
        self.blank_home as usize
    }

    /// The index space of placements.
    #[must_use]
    pub fn placements(&self) -> &Placements {
        &self.placements
    }

    /// Cells free of pattern tiles that the blank can reach from `start` (a free
    /// cell), moving through free cells only.
    #[inline(always)]
    #[must_use]
    pub fn region(&self, start: u32, free: u32) -> u32 {
        let mut region = 1u32 << start;
        loop {
            let grown = (region
                | (region >> 1 & self.not_last_column)
                | (region << 1 & self.not_first_column)
                | region >> self.cols
                | region << self.cols)
                & free;
            if grown == region {
                return region;
            }
            region = grown;
        }
    }

    /// The cells not in the first column, as a mask.
    #[inline(always)]
    #[must_use]
    pub fn not_first_column(&self) -> u32 {
        self.not_first_column
    }

    /// The cells not in the last column, as a mask.
    #[inline(always)]
    #[must_use]
    pub fn not_last_column(&self) -> u32 {
        self.not_last_column
    }

    /// The cells next to `cell`, as a mask.
    #[inline(always)]
    #[must_use]
    pub fn around(&self, cell: usize) -> u32 {
        self.around[cell % MAX_CELLS]
    }

    /// Every cell, as a mask.
    #[inline(always)]
    #[must_use]
    pub fn all(&self) -> u32 {
        self.all
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fifteen() -> Vec<u8> {
        (0..16).collect()
    }

    #[test]
    fn regions_grow_through_free_cells_only() {
        let p = Pattern::new(4, 4, &fifteen(), &[1, 2, 3]).unwrap();
        // Tiles on cells 1 and 4 wall off cell 0.
        let free = p.all() & !(1 << 1 | 1 << 4);
        assert_eq!(p.region(0, free), 1);
        assert_eq!(p.region(5, free), free & !1);
        // A wall down column 1 does not leak across rows.
        let wall = 1 << 1 | 1 << 5 | 1 << 9 | 1 << 13;
        let free = p.all() & !wall;
        assert_eq!(p.region(0, free), 1 | 1 << 4 | 1 << 8 | 1 << 12);
    }

    #[test]
    fn bad_patterns_are_refused() {
        assert!(Pattern::new(4, 4, &fifteen(), &[0, 1]).is_err());
        assert!(Pattern::new(4, 4, &fifteen(), &[1, 1]).is_err());
        assert!(Pattern::new(4, 4, &fifteen(), &[16]).is_err());
        assert!(Pattern::new(4, 4, &fifteen(), &(1..16).collect::<Vec<u8>>()).is_err());
        assert!(Pattern::new(4, 4, &fifteen(), &[]).is_err());
        assert!(Pattern::new(6, 6, &(0..36).collect::<Vec<u8>>(), &[1]).is_err());
    }
}
