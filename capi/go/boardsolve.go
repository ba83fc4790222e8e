// Package boardsolve reads boardsolve databases from Go, through the C
// library (libboardsolve, installed by capi/install; cgo finds it with
// pkg-config). A Table is a database file, or a game answered without one;
// it answers positions written in the game's notation with their value,
// remoteness and every move's value, and engines probe it by the 64-bit
// keys of format-spec.md.
//
// A Table may be used from many goroutines at once. Positions are
// immutable, and freed by the garbage collector (or at once by Free).
// Errors are *Error values, whose Code says the cause.
package boardsolve

// #cgo pkg-config: boardsolve
// #include <stdlib.h>
// #include <boardsolve.h>
import "C"

import (
	"runtime"
	"strings"
	"time"
	"unsafe"
)

// Code is the cause of an error: one of the constants below.
type Code int32

// The causes of errors, as boardsolve.h numbers them.
const (
	OK               Code = C.BOARDSOLVE_OK
	ErrNull          Code = C.BOARDSOLVE_ERR_NULL
	ErrInvalid       Code = C.BOARDSOLVE_ERR_INVALID_ARGUMENT
	ErrMissingFile   Code = C.BOARDSOLVE_ERR_MISSING_FILE
	ErrDamagedFile   Code = C.BOARDSOLVE_ERR_DAMAGED_FILE
	ErrUnusableFile  Code = C.BOARDSOLVE_ERR_UNUSABLE_FILE
	ErrUnknownGame   Code = C.BOARDSOLVE_ERR_UNKNOWN_GAME
	ErrMalformed     Code = C.BOARDSOLVE_ERR_MALFORMED_POSITION
	ErrIllegal       Code = C.BOARDSOLVE_ERR_ILLEGAL_POSITION
	ErrMalformedMove Code = C.BOARDSOLVE_ERR_MALFORMED_MOVE
	ErrIllegalMove   Code = C.BOARDSOLVE_ERR_ILLEGAL_MOVE
	ErrOtherGame     Code = C.BOARDSOLVE_ERR_OTHER_GAME
	ErrNotInBook     Code = C.BOARDSOLVE_ERR_NOT_IN_BOOK
	ErrUnreachable   Code = C.BOARDSOLVE_ERR_UNREACHABLE
	ErrCorrupt       Code = C.BOARDSOLVE_ERR_CORRUPT
	ErrNoDatabase    Code = C.BOARDSOLVE_ERR_NO_DATABASE
	ErrStopped       Code = C.BOARDSOLVE_ERR_STOPPED
	ErrTimedOut      Code = C.BOARDSOLVE_ERR_TIMED_OUT
	ErrSearchFailed  Code = C.BOARDSOLVE_ERR_SEARCH_FAILED
	ErrInternal      Code = C.BOARDSOLVE_ERR_INTERNAL
)

// String is the code's short description ("malformed position").
func (c Code) String() string {
	return C.GoString(C.boardsolve_code_text(C.boardsolve_code(c)))
}

// Error is why a call failed: its code, and the library's message.
type Error struct {
	Code    Code
	Message string
}

func (e *Error) Error() string { return e.Message }

// failure is the error of a call that returned code, with e's message
// (the code's description when the call writes none).
func failure(code C.boardsolve_code, e *C.boardsolve_error) error {
	if code == C.BOARDSOLVE_OK {
		return nil
	}
	if e == nil {
		return &Error{Code: Code(code), Message: Code(code).String()}
	}
	return &Error{Code: Code(code), Message: C.GoString(&e.message[0])}
}

// Outcome is how the game ends for a side under perfect play.
type Outcome int

// The outcomes.
const (
	Loss Outcome = C.BOARDSOLVE_LOSS
	Tie  Outcome = C.BOARDSOLVE_TIE
	Win  Outcome = C.BOARDSOLVE_WIN
)

// Version is the C library's version.
func Version() string { return C.GoString(C.boardsolve_version()) }

// Table is an open database, or a game answered without one.
type Table struct {
	t *C.boardsolve_table
}

func newTable(t *C.boardsolve_table) *Table {
	tb := &Table{t: t}
	runtime.SetFinalizer(tb, (*Table).Close)
	return tb
}

// Open opens and checks the database file at path. A file that is an
// opening book answers the positions past it by search.
func Open(path string) (*Table, error) {
	p := C.CString(path)
	defer C.free(unsafe.Pointer(p))
	var t *C.boardsolve_table
	var e C.boardsolve_error
	if err := failure(C.boardsolve_open(p, &t, &e), &e); err != nil {
		return nil, err
	}
	return newTable(t), nil
}

// OpenGame opens the game name in variant ("" for the standard one)
// without a file: from the opening book that comes with the library, if
// any, and by search.
func OpenGame(name, variant string) (*Table, error) {
	n, v := C.CString(name), C.CString(variant)
	defer C.free(unsafe.Pointer(n))
	defer C.free(unsafe.Pointer(v))
	var t *C.boardsolve_table
	var e C.boardsolve_error
	if err := failure(C.boardsolve_open_game(n, v, &t, &e), &e); err != nil {
		return nil, err
	}
	return newTable(t), nil
}

// Close closes the table, once every call on it has returned; later
// calls fail with ErrNull.
func (t *Table) Close() {
	C.boardsolve_close(t.t)
	t.t = nil
	runtime.SetFinalizer(t, nil)
}

// GameField names a text about the table's game (Text).
type GameField int32

// The texts about a game.
const (
	GameName         GameField = C.BOARDSOLVE_GAME_NAME
	GameVariant      GameField = C.BOARDSOLVE_GAME_VARIANT
	GameLabel        GameField = C.BOARDSOLVE_GAME_LABEL
	GameNotation     GameField = C.BOARDSOLVE_GAME_NOTATION
	GameMoveNotation GameField = C.BOARDSOLVE_GAME_MOVE_NOTATION
	GameScoreMeaning GameField = C.BOARDSOLVE_GAME_SCORE_MEANING
	GameFirstPlayer  GameField = C.BOARDSOLVE_GAME_FIRST_PLAYER
	GameSecondPlayer GameField = C.BOARDSOLVE_GAME_SECOND_PLAYER
	GameEvenResult   GameField = C.BOARDSOLVE_GAME_EVEN_RESULT
)

// Text is a text about the table's game ("british-square 5x5" for
// GameLabel); "" for a closed table.
func (t *Table) Text(field GameField) string {
	s := C.boardsolve_game_text(t.t, C.boardsolve_game_field(field))
	out := C.GoString(s)
	runtime.KeepAlive(t)
	return out
}

// BuildIndex reads the file's small lookup index, for many probes.
func (t *Table) BuildIndex() {
	C.boardsolve_build_index(t.t)
	runtime.KeepAlive(t)
}

// SetTimeLimit bounds each later call that searches (0: no limit); a call
// past it fails with ErrTimedOut.
func (t *Table) SetTimeLimit(d time.Duration) error {
	code := C.boardsolve_set_time_limit(t.t, C.double(d.Seconds()))
	runtime.KeepAlive(t)
	return failure(code, nil)
}

// Stop stops the searches of the calls running on the table; they fail
// with ErrStopped.
func (t *Table) Stop() error {
	code := C.boardsolve_stop(t.t)
	runtime.KeepAlive(t)
	return failure(code, nil)
}

// Position is a position of a game, parsed and checked once.
type Position struct {
	p *C.boardsolve_position
}

func newPosition(p *C.boardsolve_position) *Position {
	pos := &Position{p: p}
	runtime.SetFinalizer(pos, (*Position).Free)
	return pos
}

// Free frees the position now rather than when it is collected.
func (p *Position) Free() {
	C.boardsolve_position_free(p.p)
	p.p = nil
	runtime.SetFinalizer(p, nil)
}

// Parse reads a position of the table's game: the moves from the start
// or a picture of the board; "start" is the start.
func (t *Table) Parse(text string) (*Position, error) {
	s := C.CString(text)
	defer C.free(unsafe.Pointer(s))
	var p *C.boardsolve_position
	var e C.boardsolve_error
	err := failure(C.boardsolve_parse(t.t, s, &p, &e), &e)
	runtime.KeepAlive(t)
	if err != nil {
		return nil, err
	}
	return newPosition(p), nil
}

// Play is the position after the move named in the game's notation.
func (p *Position) Play(move string) (*Position, error) {
	s := C.CString(move)
	defer C.free(unsafe.Pointer(s))
	var after *C.boardsolve_position
	var e C.boardsolve_error
	err := failure(C.boardsolve_play(p.p, s, &after, &e), &e)
	runtime.KeepAlive(p)
	if err != nil {
		return nil, err
	}
	return newPosition(after), nil
}

// String is the position as text that Parse reads back.
func (p *Position) String() string {
	var s *C.char
	if C.boardsolve_position_text(p.p, &s, nil) != C.BOARDSOLVE_OK {
		return ""
	}
	runtime.KeepAlive(p)
	defer C.boardsolve_string_free(s)
	return C.GoString(s)
}

// Key is the position's 64-bit key (format-spec.md), and the key a
// database stores it under.
func (p *Position) Key() (key, canonical uint64) {
	var k, c C.uint64_t
	C.boardsolve_position_key(p.p, &k, &c, nil)
	runtime.KeepAlive(p)
	return uint64(k), uint64(c)
}

// Move is a legal move of an answered position, with its value.
type Move struct {
	// Name in the game's notation, which Play reads.
	Name string
	// Number as the game counts moves; -1 for a pass.
	Number int
	// Value for the side making it, then perfect play.
	Value int
	// Remoteness of the position it leads to.
	Remoteness int
	// How much longer than the best move of its outcome.
	DeltaRemoteness int
	// Outcome for the side making it.
	Outcome Outcome
	// Best is true for a move that keeps the position's value.
	Best bool
}

// Answer is a position answered.
type Answer struct {
	// Value for the side to move under perfect play.
	Value int
	// Remoteness: plies to the end under perfect play.
	Remoteness int
	// Outcome for the side to move.
	Outcome Outcome
	// FirstToMove is true when the first player is to move.
	FirstToMove bool
	// Moves: every legal move, best first.
	Moves []Move
}

// Probe answers a position of the table's game.
func (t *Table) Probe(p *Position) (*Answer, error) {
	var a C.boardsolve_answer
	var moves [C.BOARDSOLVE_MAX_MOVES]C.boardsolve_move
	var e C.boardsolve_error
	code := C.boardsolve_probe(t.t, p.p, &a, &moves[0], C.BOARDSOLVE_MAX_MOVES, &e)
	runtime.KeepAlive(t)
	runtime.KeepAlive(p)
	if err := failure(code, &e); err != nil {
		return nil, err
	}
	out := &Answer{
		Value:       int(a.value),
		Remoteness:  int(a.remoteness),
		Outcome:     Outcome(a.outcome),
		FirstToMove: a.to_move == C.BOARDSOLVE_FIRST,
		Moves:       make([]Move, 0, int(a.move_count)),
	}
	for i := 0; i < int(a.move_count) && i < len(moves); i++ {
		m := &moves[i]
		out.Moves = append(out.Moves, Move{
			Name:            C.GoString(&m.name[0]),
			Number:          int(m.number),
			Value:           int(m.value),
			Remoteness:      int(m.remoteness),
			DeltaRemoteness: int(m.delta_remoteness),
			Outcome:         Outcome(m.outcome),
			Best:            m.best != 0,
		})
	}
	return out, nil
}

// Line is the line of perfect play from the position to the end.
func (t *Table) Line(p *Position) ([]string, error) {
	var s *C.char
	var e C.boardsolve_error
	code := C.boardsolve_line(t.t, p.p, &s, &e)
	runtime.KeepAlive(t)
	runtime.KeepAlive(p)
	if err := failure(code, &e); err != nil {
		return nil, err
	}
	defer C.boardsolve_string_free(s)
	return strings.Fields(C.GoString(s)), nil
}

// JSON is the line `query --json` prints for the position text (with
// withLine, `query --json --pv`), without the newline.
func (t *Table) JSON(text string, withLine bool) (string, error) {
	in := C.CString(text)
	defer C.free(unsafe.Pointer(in))
	var flags C.uint32_t
	if withLine {
		flags = C.BOARDSOLVE_JSON_LINE
	}
	var s *C.char
	var e C.boardsolve_error
	code := C.boardsolve_json(t.t, in, flags, &s, &e)
	runtime.KeepAlive(t)
	if err := failure(code, &e); err != nil {
		return "", err
	}
	defer C.boardsolve_string_free(s)
	return C.GoString(s), nil
}

// Eval is a position's value and remoteness, without its moves.
type Eval struct {
	Value      int32
	Remoteness uint32
}

// ProbeKey is the value and remoteness of the position whose key (any of
// its symmetric images) is key.
func (t *Table) ProbeKey(key uint64) (Eval, error) {
	var v C.boardsolve_eval
	var e C.boardsolve_error
	code := C.boardsolve_probe_key(t.t, C.uint64_t(key), &v, &e)
	runtime.KeepAlive(t)
	if err := failure(code, &e); err != nil {
		return Eval{}, err
	}
	return Eval{Value: int32(v.value), Remoteness: uint32(v.remoteness)}, nil
}

// ProbeKeys probes many keys together: their evals and codes, in order,
// and the error of the first key that failed (nil when none did).
func (t *Table) ProbeKeys(keys []uint64) ([]Eval, []Code, error) {
	evals := make([]Eval, len(keys))
	codes := make([]Code, len(keys))
	if len(keys) == 0 {
		return evals, codes, nil
	}
	var e C.boardsolve_error
	// Eval and Code have the layouts of boardsolve_eval and
	// boardsolve_code: the library writes into the slices.
	code := C.boardsolve_probe_keys(t.t, (*C.uint64_t)(unsafe.Pointer(&keys[0])), C.size_t(len(keys)),
		(*C.boardsolve_eval)(unsafe.Pointer(&evals[0])), (*C.boardsolve_code)(unsafe.Pointer(&codes[0])), &e)
	runtime.KeepAlive(t)
	return evals, codes, failure(code, &e)
}
