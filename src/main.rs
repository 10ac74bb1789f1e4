//! The `antipode` command: parse arguments, call the library, map errors to exit codes.

use std::process::ExitCode;

mod cli;

fn main() -> ExitCode {
    match cli::run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            if cli::is_broken_pipe(&error) {
                return ExitCode::SUCCESS;
            }
            eprintln!("antipode: error: {error:#}");
            ExitCode::FAILURE
        }
    }
}
