//! The peg solitaire boards shipped inside the binary, run by name.

/// `(name, file name, text)` of every shipped description.
pub const SHIPPED: &crate::puzzles::description::Shipped = &[
    (
        "hoppers",
        "hoppers.toml",
        include_str!("library/hoppers.toml"),
    ),
    (
        "english33",
        "english33.toml",
        include_str!("library/english33.toml"),
    ),
    (
        "triangle15",
        "triangle15.toml",
        include_str!("library/triangle15.toml"),
    ),
    (
        "french37",
        "french37.toml",
        include_str!("library/french37.toml"),
    ),
    (
        "diamond41",
        "diamond41.toml",
        include_str!("library/diamond41.toml"),
    ),
    (
        "wiegleb45",
        "wiegleb45.toml",
        include_str!("library/wiegleb45.toml"),
    ),
];

/// The shipped description named `name`: its file name and text.
#[must_use]
pub fn shipped(name: &str) -> Option<(&'static str, &'static str)> {
    crate::puzzles::description::shipped(SHIPPED, name)
}
