use std::io::{self, IsTerminal, Write};
use std::process::ExitCode;

use clap::Parser;
use loopdeck::cli::{self, Cli};

/// Exit code for an unexpected failure (an I/O error writing the output).
const EXIT_FAILURE: u8 = 1;

fn main() -> color_eyre::Result<ExitCode> {
    // Colour in reports only for a terminal that wants it.
    let plain = std::env::var_os("NO_COLOR").is_some() || !io::stderr().is_terminal();
    let hook = color_eyre::config::HookBuilder::default();
    let hook = if plain {
        hook.theme(color_eyre::config::Theme::new())
    } else {
        hook
    };
    hook.install()?;
    // A panic while reading one directory is a problem on it, not a crash
    // report (see `loopdeck_core::guard`).
    loopdeck_core::guard::quiet_hook();

    let args = Cli::parse();
    // A usage error below speaks the language the config (if it reads) or
    // the environment asks for; `cli::run` and the console choose for
    // themselves once they have read the config.
    let speak = || {
        let config = loopdeck::config::load(args.global.config.as_deref()).ok();
        loopdeck::config::speak(config.as_ref());
    };
    let result = match &args.command {
        // `loopdeck ROOT list`: the roots belong after the command.
        Some(_) if !args.roots.is_empty() => {
            speak();
            let _ = writeln!(
                io::stderr(),
                "loopdeck: {}",
                loopdeck_i18n::t!("cli.error.roots_after")
            );
            return Ok(ExitCode::from(loopdeck::exit::EXIT_USAGE as u8));
        }
        Some(command) => {
            let mut out = io::BufWriter::new(io::stdout().lock());
            cli::run(&args.global, command, &mut out, &mut io::stderr())
                .and_then(|code| out.flush().map(|()| code))
        }
        None => {
            // `loopdeck lsit`: a mistyped command, not a root.
            for word in &args.roots {
                if std::fs::symlink_metadata(word).is_err()
                    && let Some(cmd) = word.to_str().and_then(cli::suggest_command)
                {
                    speak();
                    let word = loopdeck_core::model::text::sanitize_line(&word.to_string_lossy())
                        .into_owned();
                    let _ = writeln!(
                        io::stderr(),
                        "loopdeck: {}",
                        loopdeck_i18n::t!("cli.error.not_a_command", word = word, command = cmd)
                    );
                    return Ok(ExitCode::from(loopdeck::exit::EXIT_USAGE as u8));
                }
            }
            return Ok(ExitCode::from(
                loopdeck::console::run(&args.global, &args.roots)? as u8,
            ));
        }
    };
    match result {
        Ok(code) => Ok(ExitCode::from(code as u8)),
        // `loopdeck list | head`: the reader left; that is not a failure.
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(ExitCode::SUCCESS),
        Err(e) => {
            let _ = writeln!(
                io::stderr(),
                "loopdeck: {}",
                loopdeck_i18n::t!("cli.error.cannot_write", error = e)
            );
            Ok(ExitCode::from(EXIT_FAILURE))
        }
    }
}
