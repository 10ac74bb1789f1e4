//! The symmetries of a peg solitaire board: the rotations and reflections of its
//! drawing that map holes onto holes and jumps onto jumps (8 for the square boards, 6
//! for the triangle), found by trying the 24 turns by multiples of 30 degrees, with and
//! without a mirror, about the holes' centre.

use super::PegBoard;

/// A group of symmetries, each a permutation of the holes applied to boards by tables.
#[derive(Debug, Clone)]
pub struct Symmetries {
    /// `images[g][hole]`: where symmetry `g` takes `hole`.
    images: Vec<Vec<u8>>,
    /// `tables[g][byte_at][byte]`: the image under `g` of the pegs of one byte.
    tables: Vec<Vec<[u64; 256]>>,
}

impl Symmetries {
    /// Every symmetry of `board` (the identity first).
    #[must_use]
    pub fn of(board: &PegBoard) -> Symmetries {
        let mut triangular = super::description::lattice_steps("triangular").expect("a lattice");
        triangular.sort_unstable();
        let aspect = if board.lines == triangular {
            3f64.sqrt() // a triangular lattice drawn with holes two columns apart
        } else {
            1.0
        };
        let points: Vec<(f64, f64)> = board
            .places
            .iter()
            .map(|&(r, c)| (c as f64, r as f64 * aspect))
            .collect();
        let n = points.len() as f64;
        let centre = (
            points.iter().map(|p| p.0).sum::<f64>() / n,
            points.iter().map(|p| p.1).sum::<f64>() / n,
        );
        let jumps: std::collections::BTreeSet<(u8, u8, u8)> = board
            .jumps
            .iter()
            .enumerate()
            .flat_map(|(from, list)| list.iter().map(move |&(over, to)| (from as u8, over, to)))
            .collect();
        let mut images: Vec<Vec<u8>> = Vec::new();
        for mirror in [false, true] {
            for turn in 0..12 {
                let angle = turn as f64 * std::f64::consts::PI / 6.0;
                let (sin, cos) = angle.sin_cos();
                let image: Option<Vec<u8>> = points
                    .iter()
                    .map(|&(x, y)| {
                        let (mut dx, dy) = (x - centre.0, y - centre.1);
                        if mirror {
                            dx = -dx;
                        }
                        let (tx, ty) = (
                            centre.0 + dx * cos - dy * sin,
                            centre.1 + dx * sin + dy * cos,
                        );
                        points
                            .iter()
                            .position(|&(px, py)| (px - tx).abs() < 1e-6 && (py - ty).abs() < 1e-6)
                            .map(|h| h as u8)
                    })
                    .collect();
                let Some(image) = image else { continue };
                let keeps_jumps = jumps.iter().all(|&(f, o, t)| {
                    jumps.contains(&(image[f as usize], image[o as usize], image[t as usize]))
                });
                if keeps_jumps && !images.contains(&image) {
                    images.push(image);
                }
            }
        }
        Symmetries::from_images(images)
    }

    fn from_images(images: Vec<Vec<u8>>) -> Symmetries {
        let tables = images
            .iter()
            .map(|image| {
                let bytes = image.len().div_ceil(8);
                (0..bytes)
                    .map(|byte_at| {
                        let mut table = [0u64; 256];
                        for (byte, slot) in table.iter_mut().enumerate() {
                            for bit in 0..8 {
                                let hole = byte_at * 8 + bit;
                                if byte >> bit & 1 == 1 && hole < image.len() {
                                    *slot |= 1 << image[hole];
                                }
                            }
                        }
                        table
                    })
                    .collect()
            })
            .collect();
        Symmetries { images, tables }
    }

    /// The symmetries of this group that map `board` onto itself.
    #[must_use]
    pub fn fixing(&self, board: u64) -> Symmetries {
        let images = (0..self.len())
            .filter(|&g| self.apply(g, board) == board)
            .map(|g| self.images[g].clone())
            .collect();
        Symmetries::from_images(images)
    }

    /// The number of symmetries (the identity included).
    #[must_use]
    pub fn len(&self) -> usize {
        self.images.len()
    }

    /// Whether the group has no symmetry at all (never: the identity is one).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.images.is_empty()
    }

    /// The image of `board` under symmetry `g`.
    #[inline]
    #[must_use]
    pub fn apply(&self, g: usize, board: u64) -> u64 {
        self.tables[g]
            .iter()
            .enumerate()
            .fold(0, |image, (byte_at, table)| {
                image | table[(board >> (8 * byte_at)) as u8 as usize]
            })
    }

    /// The least of `board`'s images: its class's representative.
    #[inline]
    pub fn least(&self, board: u64) -> u64 {
        (1..self.len())
            .map(|g| self.apply(g, board))
            .fold(board, u64::min)
    }

    /// How many boards the class of `board` holds: the symmetries over those that
    /// fix it.
    #[must_use]
    pub fn class_size(&self, board: u64) -> u64 {
        let fixing = (0..self.len())
            .filter(|&g| self.apply(g, board) == board)
            .count();
        (self.len() / fixing.max(1)) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_boards_have_their_symmetries() {
        for (name, count) in [
            ("english33", 8),
            ("hoppers", 8),
            ("triangle15", 6),
            ("french37", 8),
            ("diamond41", 8),
            ("wiegleb45", 8),
        ] {
            let board = PegBoard::shipped(name).unwrap();
            let group = Symmetries::of(&board);
            assert_eq!(group.len(), count, "{name}");
            // Each is a permutation of the holes.
            for g in 0..group.len() {
                let mut seen = group.images[g].clone();
                seen.sort_unstable();
                assert_eq!(seen, (0..board.holes() as u8).collect::<Vec<_>>());
                assert_eq!(group.apply(g, board.full()), board.full());
            }
        }
        let triangle = PegBoard::shipped("triangle15").unwrap();
        // The apex start is fixed by the mirror through the apex only.
        assert_eq!(Symmetries::of(&triangle).fixing(triangle.start()).len(), 2);
    }
}
