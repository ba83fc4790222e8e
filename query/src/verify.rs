//! `query verify`: the whole file checked, every value re-derived from its
//! children.

use boardsolve::bars::Bars;
use boardsolve::cli::EXIT_SUCCESS;
use boardsolve_probe::{json, Records};

use crate::args::DbArgs;
use crate::failure::{db_failure, emit, Failure};
use crate::source::Source;

/// Verifies the database the flags name; `quiet` hides the progress bar.
pub fn run(db_args: &DbArgs, quiet: bool) -> Result<u8, Failure> {
    let as_json = db_args.json;
    let source = Source::open(db_args)?;
    source.needs_file()?;
    let (tb, game) = (source.tb(), source.game());
    let bars = Bars::new(quiet);
    let path = source.path.clone();
    match tb.verify(&bars) {
        Ok(report) => {
            if as_json {
                emit(&format!(
                    "{}\n",
                    json::whole::verify(&path, game, Ok(&report))
                ))?;
            } else {
                let checks = match tb.records() {
                    Some(Records::Dense) => "checksums",
                    _ => "checksums, order, canonical keys",
                };
                emit(&format!(
                    "{path}: OK: {} ({} records): {checks}{}\n",
                    game.label(),
                    report.records,
                    if report.children_checked {
                        ", every value re-derived from its children".to_owned()
                    } else {
                        match report.derived {
                            1 => ", the 1 position whose children are in the book re-derived \
                                  from them"
                                .to_owned(),
                            n => format!(
                                ", the {n} positions whose children are in the book re-derived \
                                 from them"
                            ),
                        }
                    }
                ))?;
            }
            Ok(EXIT_SUCCESS)
        }
        Err(e) => {
            if as_json {
                let message = e.to_string();
                emit(&format!(
                    "{}\n",
                    json::whole::verify(&path, game, Err(&message))
                ))?;
            }
            Err(db_failure(
                anyhow::Error::new(e).context(format!("{path} failed verification")),
            ))
        }
    }
}
