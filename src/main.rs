//! `gpurtl` binary: the CLI lives in `gpurtl::cli`.

fn main() -> std::process::ExitCode {
    gpurtl::cli::main()
}
