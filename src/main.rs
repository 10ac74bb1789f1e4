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
            // Control characters of user text echoed in the message (a newline in a
            // position or a file name) are escaped: the error stays one line.
            let message: String = format!("{error:#}")
                .chars()
                .flat_map(|c| match c.is_control() {
                    true => c.escape_default().collect::<Vec<_>>(),
                    false => vec![c],
                })
                .collect();
            let line = format!("antipode: error: {message}\n");
            let _ = std::io::Write::write_all(&mut std::io::stderr(), line.as_bytes());
            ExitCode::FAILURE
        }
    }
}
