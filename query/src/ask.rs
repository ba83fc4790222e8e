//! `query [POSITION...]`: the answers, one position at a time, for people
//! (with colours, the line of perfect play, a picture) or as JSON lines;
//! [`crate::batch`] answers stdin's.

use std::io::{self, BufWriter, Write};
use std::path::Path;

use anyhow::Context;
use boardsolve::cli::{quoted, EXIT_USAGE};
use boardsolve_probe::{json, Answer, Position};

use crate::args::{Ask, DbArgs};
use crate::failure::Failure;
use crate::reply::{answer_one, Mode, Refusal, Refused};
use crate::source::{assumed_game_hint, Source};
use crate::{batch, lines};

/// `query [POSITION...]`: answers the positions given, and those of stdin
/// for `-`.
pub fn run(db_args: &DbArgs, ask: &Ask, color: bool) -> Result<u8, Failure> {
    if ask.svg.is_some() && (ask.positions.len() > 1 || ask.positions.iter().any(|p| p == "-")) {
        return Err(Failure {
            code: EXIT_USAGE,
            error: anyhow::anyhow!("--svg draws one position: give exactly one POSITION (not `-`)"),
        });
    }
    let source = Source::open(db_args)?;
    // What answers need is set up first: a search that cannot be made
    // fails the run before any answer.
    source
        .tb()
        .ready()
        .map_err(|e| Failure::from(anyhow::Error::new(e)))?;
    let tb = source.tb();
    let mode = Mode {
        json: db_args.json,
        pv: ask.pv,
        color,
        weak: ask.weak,
    };
    let json = db_args.json;
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let start = ["start".to_owned()];
    let positions: &[String] = if ask.positions.is_empty() {
        &start
    } else {
        &ask.positions
    };
    let mut refused = Refused::default();
    let mut first = true;
    // A position of the assumed game that did not parse: perhaps another
    // game's.
    let mut unread = false;
    for p in positions {
        if p == "-" {
            tb.build_index();
            refused.merge(batch::answer_stdin(&source, mode, &mut out)?);
            continue;
        }
        if p.len() > lines::MAX_LINE {
            // As in batch mode: an error that quotes its input stays short.
            let e = Refusal::bad_line(format!("position is longer than {} bytes", lines::MAX_LINE));
            refused.add(&e);
            if json {
                writeln!(out, "{}", json::error(Some(&quoted(p)), &e.message))
                    .context("writing output")?;
            }
            out.flush().context("writing output")?;
            eprintln!("query: error: {}", e.message);
            first = false;
            continue;
        }
        // Parsed and answered once, for the picture and the text.
        let position = tb.parse(p);
        let mut drawn = None;
        if let Some(path) = &ask.svg {
            let answer = position
                .as_ref()
                .map_err(|e| Failure::from(anyhow::anyhow!("{e}")))
                .and_then(|position| write_svg(&source, position, path));
            match answer {
                Ok(a) => drawn = Some(a),
                Err(e) => {
                    out.flush().context("writing output")?;
                    return Err(e);
                }
            }
            if path == Path::new("-") {
                // The picture is the answer.
                continue;
            }
        }
        let answered = match &position {
            Ok(position) => source.busy(|| answer_one(tb, p, position, drawn, mode)),
            Err(e) => Err(Refusal::bad_line(e.to_string())),
        };
        match answered {
            Ok(text) => {
                if !json && !first {
                    writeln!(out).context("writing output")?;
                }
                write!(out, "{text}").context("writing output")?;
                if json {
                    writeln!(out).context("writing output")?;
                }
            }
            Err(e) => {
                refused.add(&e);
                if json {
                    writeln!(out, "{}", json::error(Some(p), &e.message))
                        .context("writing output")?;
                }
                out.flush().context("writing output")?;
                eprintln!("query: error: {}", e.message);
                unread |= source.assumed && position.is_err();
            }
        }
        first = false;
    }
    if unread {
        eprintln!("{}", assumed_game_hint(source.game()));
    }
    out.flush().context("writing output")?;
    Ok(refused.status())
}

/// Writes the SVG picture of one position to `path` (`-`: stdout), and
/// gives its answer.
fn write_svg(source: &Source, position: &Position, path: &Path) -> Result<Answer, Failure> {
    let a = source
        .busy(|| source.tb().answer(position))
        .map_err(anyhow::Error::new)?;
    let picture = a
        .svg()
        .ok_or_else(|| anyhow::anyhow!("{} has no SVG picture", source.game().name()))?;
    if path == Path::new("-") {
        let mut out = io::stdout().lock();
        out.write_all(picture.as_bytes())
            .and_then(|()| out.flush())
            .context("writing the SVG to stdout")?;
    } else {
        std::fs::write(path, picture)
            .with_context(|| format!("writing the SVG to {}", path.display()))?;
    }
    Ok(a)
}
