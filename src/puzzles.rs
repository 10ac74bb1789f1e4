//! The built-in puzzles, one module per family, and the catalog that maps command-line
//! names to them.

pub mod goat;
pub mod notation;
pub mod oshidori;
pub mod peg;
pub mod sliding;

use crate::puzzle::Puzzle;
pub use goat::Goat;
pub use oshidori::Oshidori;
pub use sliding::SlidingPuzzle;

/// Why a puzzle name was refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CatalogError {
    /// No puzzle has that name.
    #[error("unknown puzzle `{0}` (run `antipode list` to see the puzzles)")]
    Unknown(String),
    /// `sliding:RxC` with unreadable dimensions.
    #[error("bad size in `{0}`: expected `sliding:RxC` (e.g. `sliding:3x4`) or `oshidori:K`")]
    BadSize(String),
    /// An Oshidori variant that does not exist.
    #[error("{0}")]
    Kinds(String),
    /// A goal the puzzle cannot take.
    #[error("bad goal: {0}")]
    Goal(String),
    /// A size the sliding puzzle cannot take.
    #[error(transparent)]
    Size(#[from] sliding::SizeError),
}

/// One of the built-in puzzles.
#[derive(Debug, Clone)]
pub enum BuiltIn {
    /// A sliding-tile board.
    Sliding(SlidingPuzzle),
    /// Goat (seed 001).
    Goat(Goat),
    /// Oshidori (seed 003).
    Oshidori(Oshidori),
}

/// Runs `$body` with `$p` bound to the concrete puzzle inside a [`BuiltIn`].
#[macro_export]
macro_rules! with_puzzle {
    ($builtin:expr, $p:ident => $body:expr) => {
        match $builtin {
            $crate::puzzles::BuiltIn::Sliding($p) => $body,
            $crate::puzzles::BuiltIn::Goat($p) => $body,
            $crate::puzzles::BuiltIn::Oshidori($p) => $body,
        }
    };
}

impl BuiltIn {
    /// The puzzle's command-line name.
    pub fn name(&self) -> String {
        with_puzzle!(self, p => p.name())
    }

    /// The puzzle's number of indices.
    pub fn index_count(&self) -> u64 {
        with_puzzle!(self, p => p.index_count())
    }
}

impl BuiltIn {
    /// The puzzle a table names: its command-line name and its goal's one-line form.
    pub fn from_identity(name: &str, goal: &str) -> Result<BuiltIn, CatalogError> {
        let puzzle = lookup(name)?;
        match puzzle {
            BuiltIn::Sliding(p) => {
                let custom = p
                    .parse_goal(goal)
                    .map_err(|e| CatalogError::Goal(e.to_string()))?;
                Ok(BuiltIn::Sliding(p.with_goal(custom)))
            }
            other
                if other.name() == name
                    && with_puzzle!(&other, p => p.format_line(&p.goal())) == goal =>
            {
                Ok(other)
            }
            other => Err(CatalogError::Goal(format!(
                "{} has no goal `{goal}`",
                other.name()
            ))),
        }
    }
}

/// Looks a puzzle up by its command-line name.
pub fn lookup(name: &str) -> Result<BuiltIn, CatalogError> {
    let sliding = |r, c| {
        SlidingPuzzle::new(r, c)
            .map(BuiltIn::Sliding)
            .map_err(Into::into)
    };
    match name {
        "8puzzle" => sliding(3, 3),
        "11puzzle" => sliding(3, 4),
        "15puzzle" => sliding(4, 4),
        "goat" => Ok(BuiltIn::Goat(Goat)),
        "oshidori" => Ok(BuiltIn::Oshidori(Oshidori::classic())),
        _ => {
            if let Some(kinds) = name.strip_prefix("oshidori:") {
                let k = kinds
                    .parse::<usize>()
                    .map_err(|_| CatalogError::BadSize(name.into()))?;
                return Oshidori::with_kinds(k)
                    .map(BuiltIn::Oshidori)
                    .map_err(|e| CatalogError::Kinds(e.to_string()));
            }
            let Some(size) = name.strip_prefix("sliding:") else {
                return Err(CatalogError::Unknown(name.into()));
            };
            let parsed = size
                .split_once(['x', 'X'])
                .and_then(|(r, c)| Some((r.parse::<usize>().ok()?, c.parse::<usize>().ok()?)));
            match parsed {
                Some((r, c)) => sliding(r, c),
                None => Err(CatalogError::BadSize(name.into())),
            }
        }
    }
}

/// A line of `antipode list`.
#[derive(Debug, Clone)]
pub struct CatalogEntry {
    /// Command-line name.
    pub name: String,
    /// What it is.
    pub description: String,
    /// The number of indices (states) of a full table.
    pub indices: u64,
}

/// The named puzzles, plus the sliding boards up to 16 cells.
pub fn catalog() -> Vec<CatalogEntry> {
    let mut entries = vec![CatalogEntry {
        name: "goat".into(),
        description: "Goat sliding-block puzzle, 3x4 with a big piece (seed 001)".into(),
        indices: Goat.index_count(),
    }];
    for (r, c) in [
        (2, 2),
        (2, 3),
        (2, 4),
        (3, 3),
        (2, 5),
        (2, 6),
        (3, 4),
        (2, 7),
        (2, 8),
        (4, 4),
    ] {
        let p = SlidingPuzzle::new(r, c).expect("catalog sizes are valid");
        entries.push(CatalogEntry {
            name: p.name(),
            description: if p.name().starts_with("sliding:") {
                format!("sliding tiles {r}x{c}")
            } else {
                format!("sliding tiles {r}x{c} (also `sliding:{r}x{c}`)")
            },
            indices: p.index_count(),
        });
    }
    entries
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(lookup("8puzzle").unwrap().index_count(), 181_440);
        assert_eq!(lookup("sliding:3x4").unwrap().name(), "11puzzle");
        assert_eq!(lookup("sliding:2x5").unwrap().name(), "sliding:2x5");
        assert!(matches!(lookup("nine"), Err(CatalogError::Unknown(_))));
        assert!(matches!(lookup("sliding:3"), Err(CatalogError::BadSize(_))));
        assert!(matches!(lookup("sliding:1x1"), Err(CatalogError::Size(_))));
        assert!(matches!(lookup("sliding:5x5"), Err(CatalogError::Size(_))));
    }
}
