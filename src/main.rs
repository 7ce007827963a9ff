use std::io::{self, Write};
use std::process::ExitCode;

use clap::Parser;
use loopdeck::cli::{self, Cli};

fn main() -> color_eyre::Result<ExitCode> {
    color_eyre::install()?;
    let args = Cli::parse();
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let mut err = io::stderr();
    let code = match &args.command {
        Some(command) => cli::run(&args.global, command, &mut out, &mut err)?,
        None => loopdeck::runtime::run(&args.global, &args.roots)?,
    };
    out.flush()?;
    Ok(ExitCode::from(code as u8))
}
