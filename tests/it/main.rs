//! The integration tests, one binary (it builds and links once): the real binary and
//! the library on the real puzzles, with the published figures.

mod common;

mod blocks;
mod checksums;
mod cli;
mod compose;
mod disk_levels;
mod executors;
mod figures;
mod goal_sets;
mod guidance;
mod house;
mod kpuzzle;
mod parsers;
mod pdb;
mod peg;
mod plots;
mod readme;
mod shards;
mod solve;
mod stores;
mod symmetry;
mod tables;
mod twisty_goals;
mod writers;
