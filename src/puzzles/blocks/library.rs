//! The description files shipped inside the binary, run by name.

/// `(name, file name, text)` of every shipped description.
pub const SHIPPED: &crate::puzzles::description::Shipped = &[
    (
        "klotski",
        "klotski.toml",
        include_str!("library/klotski.toml"),
    ),
    (
        "century",
        "century.toml",
        include_str!("library/century.toml"),
    ),
    (
        "super-century",
        "super-century.toml",
        include_str!("library/super-century.toml"),
    ),
    ("dads", "dads.toml", include_str!("library/dads.toml")),
    ("ma", "ma.toml", include_str!("library/ma.toml")),
    ("goat", "goat.toml", include_str!("library/goat.toml")),
];

/// The shipped description named `name`.
#[must_use]
pub fn shipped(name: &str) -> Option<(&'static str, &'static str)> {
    crate::puzzles::description::shipped(SHIPPED, name)
}
