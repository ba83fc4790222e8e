//! `query pack` and `query unpack`: a sorted or dense database to the
//! packed layout and back, byte for byte.

use std::path::Path;
use std::time::Instant;

use anyhow::Context;
use boardsolve::bars::Bars;
use boardsolve::cli::EXIT_SUCCESS;
use boardsolve::db::pack::{pack_database, unpack_database, write_packed, PackOptions};
use boardsolve::db::Database;
use boardsolve::registry::AnyGame;

use crate::args::{DbArgs, PackArgs, UnpackArgs};
use crate::failure::{db_failure, emit, usage, Failure};

/// The options of the database flags that do not apply to pack and unpack.
fn refuse_db_flags(db_args: &DbArgs, command: &str) -> Result<(), Failure> {
    if !db_args.db.is_empty() || db_args.game.is_some() || db_args.variant.is_some() {
        return Err(usage(&format!(
            "--db, --game and --variant do not apply to {command}: give the file as IN"
        )));
    }
    Ok(())
}

/// Refuses to write a file over the one it reads.
fn distinct(input: &Path, output: &Path) -> Result<(), Failure> {
    let same = match (input.canonicalize(), output.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    if same {
        return Err(usage(
            "IN and OUT are the same file: write the result elsewhere",
        ));
    }
    Ok(())
}

/// Opens and validates the database at `path` and sets up its game: the
/// whole file is read, so the library's reader is used directly.
fn open(path: &Path) -> Result<(Database, AnyGame), Failure> {
    AnyGame::open(path).map_err(|e| {
        db_failure(anyhow::Error::new(e).context(format!("database {}", path.display())))
    })
}

fn file_len(path: &Path) -> u64 {
    std::fs::metadata(path).map(|m| m.len()).unwrap_or(0)
}

/// Bits a position: 8 times the file's bytes over the positions it
/// answers (its records; for a dense table, every key).
fn bits_a_position(bytes: u64, records: u64) -> f64 {
    if records == 0 {
        0.0
    } else {
        8.0 * bytes as f64 / records as f64
    }
}

pub fn run_pack(db_args: &DbArgs, args: &PackArgs) -> Result<u8, Failure> {
    refuse_db_flags(db_args, "pack")?;
    let options = PackOptions {
        block_entries: args.block_entries,
        level: args.level,
    };
    options.check().map_err(|e| usage(&e.to_string()))?;
    distinct(&args.input, &args.output)?;
    let clock = Instant::now();
    let (db, game) = open(&args.input)?;
    let bars = Bars::new(args.quiet);
    let input = args.input.display().to_string();
    let (body, header) = pack_database(&db, game.game(), options, &bars)
        .with_context(|| format!("database {input}"))
        .map_err(db_failure)?;
    drop(db);
    let output = args.output.display().to_string();
    write_packed(&args.output, &header, &body).with_context(|| format!("writing {output}"))?;
    let (before, after) = (file_len(&args.input), body.file_size());
    let seconds = clock.elapsed().as_secs_f64();
    report(
        db_args.json,
        &game,
        serde_json::json!({
            "command": "pack", "input": input, "output": output,
            "input_bytes": before, "output_bytes": after,
            "records": header.record_count, "entries": body.entry_count,
            "blocks": body.blocks.len(), "block_entries": body.block_entries,
            "bits_per_position": bits_a_position(after, header.record_count),
            "seconds": seconds,
        }),
        format!(
            "packed {input} into {output}: {after} bytes, {:.2} bits a position, {}\n\
             blocks: {} of {} entries ({} entries in all)\n\
             time: {seconds:.2} s\n",
            bits_a_position(after, header.record_count),
            if after < before {
                format!(
                    "{:.1}x smaller than its {before} bytes",
                    before as f64 / after.max(1) as f64
                )
            } else {
                format!("no smaller than its {before} bytes")
            },
            body.blocks.len(),
            body.block_entries,
            body.entry_count,
        ),
    )
}

pub fn run_unpack(db_args: &DbArgs, args: &UnpackArgs) -> Result<u8, Failure> {
    refuse_db_flags(db_args, "unpack")?;
    distinct(&args.input, &args.output)?;
    let clock = Instant::now();
    let (db, game) = open(&args.input)?;
    let game = &game;
    let input = args.input.display().to_string();
    if !db.is_packed() {
        return Err(usage(&format!(
            "{input} is not packed: there is nothing to unpack"
        )));
    }
    let output = args.output.display().to_string();
    unpack_database(&db, &args.output)
        .with_context(|| format!("unpacking {input} into {output}"))
        .map_err(|e| {
            // Damage in the packed file is the database's fault (exit 3);
            // an unwritable output is not.
            if e.chain().any(|c| {
                matches!(
                    c.downcast_ref::<boardsolve::DbError>(),
                    Some(boardsolve::DbError::Io { .. } | boardsolve::DbError::NoDirectory { .. })
                        | Some(boardsolve::DbError::NotAFile { .. })
                )
            }) {
                Failure::from(e)
            } else {
                db_failure(e)
            }
        })?;
    let (before, after) = (file_len(&args.input), file_len(&args.output));
    let seconds = clock.elapsed().as_secs_f64();
    report(
        db_args.json,
        game,
        serde_json::json!({
            "command": "unpack", "input": input, "output": output,
            "input_bytes": before, "output_bytes": after,
            "records": db.header().record_count, "seconds": seconds,
        }),
        format!(
            "unpacked {input} ({before} bytes) into {output}: {after} bytes, the file that was \
             packed\ntime: {seconds:.2} s\n"
        ),
    )
}

/// Prints the summary, as JSON (with the game) or as text.
fn report(
    json: bool,
    game: &AnyGame,
    mut fields: serde_json::Value,
    text: String,
) -> Result<u8, Failure> {
    if json {
        fields["game"] = game.game().descriptor().name.into();
        fields["variant"] = game.game().descriptor().variant.clone().into();
        emit(&format!("{fields}\n"))?;
    } else {
        emit(&text)?;
    }
    Ok(EXIT_SUCCESS)
}
