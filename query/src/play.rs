//! `query play`: walk the game tree from a position, or play against the
//! perfect player, with every answer read from the database.
//!
//! The session is a plain state machine ([`Session::handle`] takes one
//! command line and returns the text to print), so scripted tests drive it
//! exactly as a person at the prompt does; [`run_session`] only adds the
//! line editor when stdin is a terminal, and [`run`] sets it up from the
//! command line.

use std::fmt::Write as _;
use std::io::{self, IsTerminal, Write};

use anyhow::{Context, Result};
use boardsolve::cli::EXIT_SUCCESS;
use boardsolve_probe::text::{self, signed};
use boardsolve_probe::{Answer, Game, Move, Player, Position, ProbeError};

use crate::args::{AiSide, DbArgs, PlayArgs};
use crate::failure::{usage, Failure};
use crate::lines::{self, Line};
use crate::source::Source;

/// `query play`: a session from the position `args` names, on the answers
/// of the source the flags name.
pub fn run(db_args: &DbArgs, args: &PlayArgs, color: bool) -> Result<u8, Failure> {
    if db_args.json {
        return Err(usage(
            "--json does not apply to play, which talks to people",
        ));
    }
    let source = Source::open(db_args)?;
    source
        .tb()
        .ready()
        .map_err(|e| Failure::from(anyhow::Error::new(e)))?;
    play_with(&source, args, color)
}

/// A session on `source` from `args`'s position, with its options.
fn play_with(source: &Source, args: &PlayArgs, color: bool) -> Result<u8, Failure> {
    let start = match &args.position {
        Some(text) => {
            let p = source.tb().parse(text).map_err(anyhow::Error::new)?;
            source
                .busy(|| source.tb().answer(&p))
                .map_err(anyhow::Error::new)?;
            p
        }
        // Nobody has scored before the first move.
        None => source.game().start(),
    };
    let seed = match (args.seed, args.random) {
        (Some(seed), _) => Some(seed),
        (None, true) => Some(fastrand::u64(..)),
        (None, false) => None,
    };
    let opts = Options {
        ai: args.ai,
        seed,
        color,
    };
    run_session(Session::new(source, start, opts))?;
    Ok(EXIT_SUCCESS)
}

/// How the session is set up.
#[derive(Clone, Debug)]
pub struct Options {
    /// The sides the program plays, if any.
    pub ai: Option<AiSide>,
    /// Seed of the random choice among the best moves; `None` plays the
    /// remoteness tie-break's choice.
    pub seed: Option<u64>,
    /// Colour the move values.
    pub color: bool,
}

/// One move of the game so far.
#[derive(Clone, Copy, Debug)]
struct Step {
    before: Position,
    mv: Move,
    after: Position,
    /// The move's value for its player, and the best one could get.
    value: i32,
    best: i32,
    /// The same two for the first player, as the history shows them: the
    /// final score where the score so far is known, else from here on.
    for_first: i32,
    best_for_first: i32,
    /// Whether the move kept the best score for its player.
    perfect: bool,
}

/// What [`Session::handle`] asks of the caller.
#[derive(Debug, PartialEq, Eq)]
pub enum Control {
    /// Read the next command.
    Continue,
    /// End the session.
    Quit,
}

/// A play session on one database.
pub struct Session<'a> {
    source: &'a Source,
    game: Game,
    opts: Options,
    start: Position,
    history: Vec<Step>,
    redo: Vec<Step>,
    rng: Option<fastrand::Rng>,
    /// The game-over summary was printed for the current position.
    summarised: bool,
}

const HELP: &str = "\
Commands:
  MOVE             play a move: {moves}
{pass}  undo [N], u      take back the last move (with a computer player: back to
                   your previous turn), or N moves
  redo [N], r      play again what undo took back (with a computer player:
                   up to your next turn), or N moves
  restart          back to the position the session started from
  go POSITION      start again from POSITION (same notation as `query`)
  pv               the line of perfect play from here
  best             play the best move for the side to move
  show             show the position again
  history          the moves so far, with the mistakes marked
  help, ?          this text
  quit, q          end the session (end of input does too)";

impl<'a> Session<'a> {
    /// A session from `start`.
    pub fn new(source: &'a Source, start: Position, opts: Options) -> Self {
        let rng = opts.seed.map(fastrand::Rng::with_seed);
        Session {
            source,
            game: source.game(),
            opts,
            start,
            history: Vec::new(),
            redo: Vec::new(),
            rng,
            summarised: false,
        }
    }

    /// The current position.
    pub fn position(&self) -> Position {
        self.history.last().map_or(self.start, |s| s.after)
    }

    fn analyze(&self, p: &Position) -> Result<Answer> {
        self.source
            .busy(|| self.source.tb().answer(p))
            .map_err(anyhow::Error::new)
    }

    fn is_ai(&self, player: Player) -> bool {
        match self.opts.ai {
            None => false,
            Some(AiSide::Both) => true,
            Some(AiSide::First) => player == Player::First,
            Some(AiSide::Second) => player == Player::Second,
        }
    }

    /// The prompt for the current position.
    pub fn prompt(&self) -> String {
        let p = self.position();
        format!("{} {}> ", self.history.len() + 1, p.to_move_name())
    }

    /// The opening text: the position, and the computer's moves if it
    /// moves first.
    pub fn begin(&mut self) -> Result<String> {
        let mut out = String::new();
        if let Some(seed) = self.opts.seed {
            let _ = writeln!(out, "Random choice among the best moves, seed {seed}.");
        }
        self.after_change(&mut out)?;
        Ok(out)
    }

    /// Handles one command line; appends what to print to `out`.
    pub fn handle(&mut self, line: &str, out: &mut String) -> Result<Control> {
        let line = line.trim();
        let (cmd, arg) = match line.split_once(char::is_whitespace) {
            Some((c, a)) => (c, a.trim()),
            None => (line, ""),
        };
        match cmd.to_ascii_lowercase().as_str() {
            "" => {}
            "quit" | "q" | "exit" => return Ok(Control::Quit),
            "help" | "h" | "?" => {
                let moves = boardsolve::cli::wrap(self.game.move_notation(), 78, 31, 19);
                let pass = if self.game.has_passes() {
                    "  pass             pass, when the rules force it (no legal move)\n"
                } else {
                    ""
                };
                let _ = writeln!(
                    out,
                    "{}",
                    HELP.replace("{moves}", &moves).replace("{pass}", pass)
                );
            }
            "show" | "board" => self.show(out)?,
            "undo" | "u" | "back" => self.undo(arg, out)?,
            "redo" | "r" | "forward" => self.redo(arg, out)?,
            "restart" | "new" => {
                self.history.clear();
                self.redo.clear();
                let _ = writeln!(out, "Back to the start.");
                self.after_change(out)?;
            }
            "go" | "position" | "pos" => self.go(arg, out)?,
            "pv" | "line" => self.pv(out)?,
            "history" | "moves" => self.history_text(out),
            "best" => {
                let p = self.position();
                let a = self.analyze(&p)?;
                match self.choose(&a) {
                    Some(mv) => {
                        self.play(&a, mv, out)?;
                        self.after_change(out)?;
                    }
                    None => {
                        let _ = writeln!(out, "The game is over: no move to play.");
                    }
                }
            }
            "pass" => self.pass(out)?,
            _ => self.human_move(line, out)?,
        }
        // Watching the program play itself ends with the game.
        if self.opts.ai == Some(AiSide::Both) && self.summarised {
            return Ok(Control::Quit);
        }
        Ok(Control::Continue)
    }

    fn show(&self, out: &mut String) -> Result<()> {
        let p = self.position();
        let a = self.analyze(&p)?;
        out.push_str(&self.render(&a));
        Ok(())
    }

    fn human_move(&mut self, text: &str, out: &mut String) -> Result<()> {
        let p = self.position();
        let a = self.analyze(&p)?;
        if a.is_over() {
            let _ = writeln!(
                out,
                "The game is over. Type `undo`, `restart`, `go POSITION` or `quit`."
            );
            return Ok(());
        }
        if self.is_ai(p.to_move()) {
            let _ = writeln!(out, "It is the computer's turn.");
            return Ok(());
        }
        let mv = match p.parse_move(text) {
            Ok(mv) => mv,
            Err(e) => {
                let reason = match e {
                    ProbeError::MalformedMove { reason, .. }
                    | ProbeError::IllegalMove { reason, .. }
                    | ProbeError::Malformed { reason, .. } => reason,
                    e => e.to_string(),
                };
                let _ = writeln!(
                    out,
                    "Not a legal move or command: {text:?} ({reason}). Type `help` for the commands."
                );
                return Ok(());
            }
        };
        if mv.is_pass() {
            return self.pass(out);
        }
        self.play(&a, mv, out)?;
        self.after_change(out)
    }

    fn pass(&mut self, out: &mut String) -> Result<()> {
        if !self.game.has_passes() {
            let _ = writeln!(
                out,
                "There is no passing in {}: type a move (`help` lists the commands).",
                self.game.name()
            );
            return Ok(());
        }
        let p = self.position();
        let a = self.analyze(&p)?;
        let me = p.to_move_name();
        let moves: Vec<Move> = a.moves().map(|m| m.mv).collect();
        match moves.as_slice() {
            [] => {
                let _ = writeln!(out, "The game is over: there is nothing to pass.");
            }
            [m] if m.is_pass() => {
                if self.is_ai(p.to_move()) {
                    let _ = writeln!(out, "It is the computer's turn.");
                    return Ok(());
                }
                self.play(&a, *m, out)?;
                self.after_change(out)?;
            }
            _ => {
                let _ = writeln!(
                    out,
                    "{me} cannot pass: a player may only pass when they have no legal move."
                );
            }
        }
        Ok(())
    }

    /// Plays `mv` (legal in the answered position) and records it.
    fn play(&mut self, a: &Answer, mv: Move, out: &mut String) -> Result<()> {
        let m = a
            .move_value(&mv)
            .context("the move is not among the legal moves")?;
        let before = a.position();
        let after = before.play(&mv)?;
        // Turned to the first player's side, with the score so far where
        // the value counts from here on (a game given its score so far).
        let side = before.to_move().sign();
        let offset = a.final_for_first().map_or(0, |f| f - side * a.value());
        let step = Step {
            before,
            mv,
            after,
            value: m.value,
            best: a.value(),
            for_first: side * m.value + offset,
            best_for_first: side * a.value() + offset,
            perfect: m.best,
        };
        let who = before.to_move_name();
        let name = mv.name();
        if mv.is_pass() {
            // Only ever forced, so never a mistake.
            let _ = writeln!(out, "{who} passes (no legal move).");
        } else if !m.best {
            let _ = writeln!(
                out,
                "{who} plays {name}: a mistake (value {} for {who} instead of {}).",
                signed(m.value),
                signed(a.value())
            );
        } else {
            let _ = writeln!(out, "{who} plays {name}.");
        }
        self.history.push(step);
        self.redo.clear();
        self.summarised = false;
        Ok(())
    }

    /// Shows an answered position.
    fn render(&self, a: &Answer) -> String {
        text::report(a, None, self.opts.color)
    }

    /// The computer's choice among the best moves.
    fn choose(&mut self, a: &Answer) -> Option<Move> {
        let best: Vec<Move> = a.best_moves().map(|m| m.mv).collect();
        match (&mut self.rng, best.len()) {
            (_, 0) => None,
            (Some(rng), n) => Some(best[rng.usize(..n)]),
            // The analysis lists the moves best first, the remoteness
            // tie-break included: the quickest win, the longest resistance.
            (None, _) => Some(best[0]),
        }
    }

    /// After the position changed: the computer moves while it is its
    /// turn, then the position is shown, and the summary at the end.
    fn after_change(&mut self, out: &mut String) -> Result<()> {
        loop {
            let p = self.position();
            let a = self.analyze(&p)?;
            if a.is_over() {
                out.push_str(&self.render(&a));
                self.summary(&a, out);
                return Ok(());
            }
            if !self.is_ai(p.to_move()) {
                out.push_str(&self.render(&a));
                return Ok(());
            }
            if self.opts.ai == Some(AiSide::Both) {
                out.push_str(&self.render(&a));
            }
            let mv = self
                .choose(&a)
                .context("a position with moves has a best one")?;
            self.play(&a, mv, out)?;
        }
    }

    fn summary(&mut self, a: &Answer, out: &mut String) {
        self.summarised = true;
        let game = self.game;
        let _ = writeln!(
            out,
            "Game over after {}.",
            count(self.history.len(), "move")
        );
        if let Some(f) = a.final_for_first() {
            let first = game.player_name(Player::First);
            let second = game.player_name(Player::Second);
            let verdict = match f.signum() {
                1 => format!("{first} wins"),
                -1 => format!("{second} wins"),
                _ => format!("a {}", game.even_word()),
            };
            if game.counts_points() {
                let _ = writeln!(
                    out,
                    "Final score: {} ({first}'s points minus {second}'s): {verdict}.",
                    signed(f)
                );
            } else {
                // Who won, in the game's words where it has them (Connect
                // Four: with which stone).
                let words = game
                    .score_words(f.abs(), if f < 0 { Player::Second } else { Player::First })
                    .unwrap_or(verdict);
                let _ = writeln!(out, "Result: {words}.");
            }
        }
        for player in [Player::First, Player::Second] {
            let name = game.player_name(player);
            let mistakes: Vec<(usize, &Step)> = self
                .history
                .iter()
                .enumerate()
                .filter(|(_, s)| s.before.to_move() == player && !s.perfect)
                .collect();
            let moves = self
                .history
                .iter()
                .filter(|s| s.before.to_move() == player)
                .count();
            if mistakes.is_empty() {
                let _ = writeln!(out, "{name} played perfectly ({}).", count(moves, "move"));
            } else {
                let _ = writeln!(
                    out,
                    "{name} made {} in {}:",
                    count(mistakes.len(), "mistake"),
                    count(moves, "move")
                );
                for (i, s) in mistakes {
                    let _ = writeln!(
                        out,
                        "  move {}: {} played {}, value {} for {name} (best was {})",
                        i + 1,
                        name,
                        s.mv,
                        signed(s.value),
                        signed(s.best)
                    );
                }
            }
        }
        if self.opts.ai != Some(AiSide::Both) {
            let _ = writeln!(
                out,
                "Type `undo` to take moves back, `restart` to play again, `quit` to leave."
            );
        }
    }

    fn count(arg: &str, out: &mut String) -> Option<usize> {
        if arg.is_empty() {
            return Some(1);
        }
        match arg.parse::<usize>() {
            Ok(n) if n > 0 => Some(n),
            _ => {
                let _ = writeln!(out, "Expected a number of moves, got {arg:?}.");
                None
            }
        }
    }

    fn undo(&mut self, arg: &str, out: &mut String) -> Result<()> {
        let Some(mut n) = Self::count(arg, out) else {
            return Ok(());
        };
        if self.history.is_empty() {
            let _ = writeln!(out, "Nothing to undo: this is the start of the session.");
            return Ok(());
        }
        if arg.is_empty() && self.opts.ai.is_some() && self.opts.ai != Some(AiSide::Both) {
            // Back to the human's previous turn: take back the computer's
            // replies too.
            n = 0;
            while let Some(s) = self.history.get(self.history.len() - n - 1) {
                n += 1;
                if !self.is_ai(s.before.to_move()) || self.history.len() == n {
                    break;
                }
            }
        }
        let n = n.min(self.history.len());
        for _ in 0..n {
            if let Some(s) = self.history.pop() {
                self.redo.push(s);
            }
        }
        let _ = writeln!(out, "Took back {n} move{}.", if n == 1 { "" } else { "s" });
        self.summarised = false;
        self.show(out)
    }

    fn redo(&mut self, arg: &str, out: &mut String) -> Result<()> {
        let Some(mut n) = Self::count(arg, out) else {
            return Ok(());
        };
        if self.redo.is_empty() {
            let _ = writeln!(out, "Nothing to redo.");
            return Ok(());
        }
        if arg.is_empty() && self.opts.ai.is_some() && self.opts.ai != Some(AiSide::Both) {
            // As `undo` takes them back: the human's move and the
            // computer's replies, up to the human's next turn.
            let len = self.redo.len();
            n = 0;
            while n < len {
                let s = &self.redo[len - 1 - n];
                if n > 0 && !self.is_ai(s.before.to_move()) {
                    break;
                }
                n += 1;
            }
        }
        let n = n.min(self.redo.len());
        for _ in 0..n {
            if let Some(s) = self.redo.pop() {
                self.history.push(s);
            }
        }
        let _ = writeln!(out, "Replayed {n} move{}.", if n == 1 { "" } else { "s" });
        let a = self.analyze(&self.position())?;
        out.push_str(&self.render(&a));
        if a.is_over() {
            self.summary(&a, out);
        }
        Ok(())
    }

    fn go(&mut self, arg: &str, out: &mut String) -> Result<()> {
        if arg.is_empty() {
            let _ = writeln!(out, "Usage: go POSITION");
            return Ok(());
        }
        let p = match self.game.parse(arg) {
            Ok(p) => p,
            Err(e) => {
                let _ = writeln!(out, "{e}");
                return Ok(());
            }
        };
        if let Err(e) = self.source.busy(|| self.source.tb().answer(&p)) {
            let _ = writeln!(out, "{e}");
            return Ok(());
        }
        self.start = p;
        self.history.clear();
        self.redo.clear();
        self.after_change(out)
    }

    fn pv(&self, out: &mut String) -> Result<()> {
        let mut p = self.position();
        let mut line = Vec::new();
        loop {
            let a = self.analyze(&p)?;
            let Some(m) = a.moves().next() else { break };
            line.push(m.mv.to_string());
            p = p.play(&m.mv)?;
            if line.len() > 4096 {
                anyhow::bail!("the line of perfect play does not end");
            }
        }
        if line.is_empty() {
            let _ = writeln!(out, "The game is over.");
        } else {
            let _ = writeln!(out, "Perfect play: {}", line.join(" "));
        }
        Ok(())
    }

    fn history_text(&self, out: &mut String) {
        if self.history.is_empty() {
            let _ = writeln!(out, "No moves yet.");
            return;
        }
        // Drawn along the game, so from one side: the first player's.
        let first = self.game.player_name(Player::First);
        let _ = writeln!(
            out,
            "Values for {first}, the first player, after each move:"
        );
        for (i, s) in self.history.iter().enumerate() {
            let _ = writeln!(
                out,
                "{:>3}. {} {:<5} value {:>3}{}",
                i + 1,
                s.before.to_move_name(),
                s.mv.name(),
                signed(s.for_first),
                if s.perfect {
                    String::new()
                } else {
                    format!("  mistake (best {})", signed(s.best_for_first))
                }
            );
        }
    }
}

/// Runs a session on stdin and stdout: a line editor with history when
/// stdin is a terminal, plain lines (no prompts) otherwise.
pub fn run_session(mut session: Session<'_>) -> Result<()> {
    let stdout = io::stdout();
    let mut w = stdout.lock();
    let begin = session.begin()?;
    w.write_all(begin.as_bytes())?;
    w.flush()?;
    if session.opts.ai == Some(AiSide::Both) {
        return Ok(());
    }
    if io::stdin().is_terminal() {
        drop(w);
        return run_editor(session);
    }
    let mut input = io::BufReader::new(io::stdin().lock());
    let mut buf = Vec::new();
    // Lines of bounded length, whatever the bytes: a bad line is answered
    // with an error and the game goes on.
    while let Some(line) = lines::next_line(&mut input, &mut buf).context("reading stdin")? {
        let mut out = String::new();
        let control = match line {
            Line::Text(line) => session.handle(&line, &mut out)?,
            Line::BadUtf8(_) => {
                out.push_str("Not a command: the line is not valid UTF-8.\n");
                Control::Continue
            }
            Line::TooLong(_) => {
                out.push_str(&format!(
                    "Not a command: the line is longer than {} bytes.\n",
                    lines::MAX_LINE
                ));
                Control::Continue
            }
        };
        w.write_all(out.as_bytes())?;
        w.flush()?;
        if control == Control::Quit {
            break;
        }
    }
    Ok(())
}

fn run_editor(mut session: Session<'_>) -> Result<()> {
    use rustyline::error::ReadlineError;
    let mut editor = rustyline::DefaultEditor::new().context("starting the line editor")?;
    let mut stdout = io::stdout();
    writeln!(stdout, "Type `help` for the commands.")?;
    loop {
        match editor.readline(&session.prompt()) {
            Ok(line) => {
                if !line.trim().is_empty() {
                    let _ = editor.add_history_entry(line.as_str());
                }
                let mut out = String::new();
                let control = session.handle(&line, &mut out)?;
                stdout.write_all(out.as_bytes())?;
                stdout.flush()?;
                if control == Control::Quit {
                    return Ok(());
                }
            }
            // Ctrl-C abandons the line, as in a shell.
            Err(ReadlineError::Interrupted) => continue,
            Err(ReadlineError::Eof) => return Ok(()),
            Err(e) => return Err(e).context("reading a command"),
        }
    }
}

/// `n` and a noun, plural unless `n` is 1: "1 move", "2 moves".
fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}
