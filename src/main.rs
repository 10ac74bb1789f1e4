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
            // One write, so that the lines of processes sharing a stderr (the ranks
            // of an MPI job) do not interleave.
            let line = format!("antipode: error: {error:#}\n");
            let _ = std::io::Write::write_all(&mut std::io::stderr(), line.as_bytes());
            ExitCode::FAILURE
        }
    }
}
