/*
 * boardsolve.h: read boardsolve databases from C, C++ and any language
 * that calls C (Go through cgo, C# through P/Invoke, Java through JNA).
 *
 * A table is a database file opened and checked once (its header, its
 * size, the game's bounds), or a game answered without a file, from the
 * opening book that comes with the library and by search past it. It
 * answers positions written in the game's own notation: the value under
 * perfect play, the remoteness (plies to the end), whether the side to
 * move wins, ties or loses, and every legal move with its value. Engines
 * that keep their own positions probe by the 64-bit key that the file
 * format (format-spec.md) defines for each game.
 *
 * Link with `pkg-config --cflags --libs boardsolve` (the shared
 * libboardsolve.so, soname libboardsolve.so.0), or with
 * `pkg-config --static --libs boardsolve` and libboardsolve.a.
 *
 * Values. A position's value is for the side to move, and a move's for
 * the side making it; positive is a win for that side. What the number
 * counts is the game's (BOARDSOLVE_GAME_SCORE_MEANING): British Square's
 * final pieces minus the opponent's, Connect Four's how early it wins.
 *
 * Errors. Every call that can fail returns a boardsolve_code:
 * BOARDSOLVE_OK (0), or the cause. When its last argument, a
 * boardsolve_error, is not NULL, the call also writes the code there with
 * a message that says why (on success: BOARDSOLVE_OK and an empty
 * message). Nothing is kept between calls: no global or thread-local
 * error state, so a goroutine that moves between threads reads the error
 * of its own call. A NULL pointer where a value is needed, a position of
 * another game, a malformed or illegal position, a damaged file, or a
 * file changed underneath (truncated while open) gives a code, never a
 * crash; the library never panics across this interface (an internal
 * failure is BOARDSOLVE_ERR_INTERNAL).
 *
 * Memory. What the library allocates, the caller frees, once, with the
 * free function of its kind: boardsolve_close for a table,
 * boardsolve_position_free for a position, boardsolve_string_free for a
 * string. Each accepts NULL. Strings, in and out, are UTF-8 and end with
 * NUL. Results written into the caller's structures and arrays need no
 * freeing.
 *
 * Threads. A table may be used from many threads at once: every call but
 * boardsolve_close takes it as const, and calls on one table from
 * several threads run in parallel (lookups share the file's mapping;
 * searches share the table's pool of searchers, one per core, and wait
 * for one when all are busy). boardsolve_close must come after every
 * other call on the table has returned. Positions are immutable values
 * that may be read from any thread, and outlive the table that parsed
 * them.
 *
 * Searches. A table of a game whose positions are searched (Connect Four
 * past its opening book, Dandelions, large Dots and Boxes and k-in-a-row
 * boards) may search for a long time. boardsolve_set_time_limit bounds
 * each call (BOARDSOLVE_ERR_TIMED_OUT), and boardsolve_stop, from any
 * thread, stops the calls running on the table (BOARDSOLVE_ERR_STOPPED);
 * the table answers later calls as before.
 *
 * Files. A table maps its file. Should the file shrink while it is open,
 * the lookups that need the lost bytes fail with
 * BOARDSOLVE_ERR_CORRUPT: a handler of SIGBUS, installed when the first
 * file is opened, keeps the process alive and passes any other SIGBUS on
 * to the handler that was there before it. A program that installs its
 * own SIGBUS handler later must pass on the signals it does not own.
 *
 * Version 0.x of the library keeps the soname libboardsolve.so.0.
 */
#ifndef BOARDSOLVE_H
#define BOARDSOLVE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------
 * Results and errors
 */

/* The outcome of a call: BOARDSOLVE_OK or one of the BOARDSOLVE_ERR_
 * causes below. */
typedef int32_t boardsolve_code;

enum {
    /* The call succeeded. */
    BOARDSOLVE_OK = 0,
    /* A pointer the call needs is NULL. */
    BOARDSOLVE_ERR_NULL = 1,
    /* An argument out of range: a field or flag this version does not
     * know, a negative time limit, a handle of another kind. */
    BOARDSOLVE_ERR_INVALID_ARGUMENT = 2,
    /* The file does not exist. */
    BOARDSOLVE_ERR_MISSING_FILE = 3,
    /* The file is a database whose bytes fail their checks: damaged or
     * forged. */
    BOARDSOLVE_ERR_DAMAGED_FILE = 4,
    /* The file cannot be used: not a regular file, not a database, or of
     * a format, game or variant this library does not know. */
    BOARDSOLVE_ERR_UNUSABLE_FILE = 5,
    /* No game has this name, or the game has no such variant. */
    BOARDSOLVE_ERR_UNKNOWN_GAME = 6,
    /* The text does not follow the game's notation of positions (or is
     * longer than 4096 bytes, or is not UTF-8), or a key no position of
     * the game has. */
    BOARDSOLVE_ERR_MALFORMED_POSITION = 7,
    /* The position breaks the game's rules. */
    BOARDSOLVE_ERR_ILLEGAL_POSITION = 8,
    /* The text names no move in the game's notation. */
    BOARDSOLVE_ERR_MALFORMED_MOVE = 9,
    /* The move is not legal in the position. */
    BOARDSOLVE_ERR_ILLEGAL_MOVE = 10,
    /* The position is of another game or variant than the table's. */
    BOARDSOLVE_ERR_OTHER_GAME = 11,
    /* The position, or one after a move from it, lies past the opening
     * book the file holds, and the game is not searched. */
    BOARDSOLVE_ERR_NOT_IN_BOOK = 12,
    /* No game reaches the position from the start. */
    BOARDSOLVE_ERR_UNREACHABLE = 13,
    /* The file contradicts itself, holds a value the game rules out, or
     * lost the bytes a lookup needs since it was opened. */
    BOARDSOLVE_ERR_CORRUPT = 14,
    /* The call needs a file, and the table answers by search alone. */
    BOARDSOLVE_ERR_NO_DATABASE = 15,
    /* The search was stopped by boardsolve_stop. */
    BOARDSOLVE_ERR_STOPPED = 16,
    /* The search reached the time limit of boardsolve_set_time_limit. */
    BOARDSOLVE_ERR_TIMED_OUT = 17,
    /* The search could not be set up (its tables do not fit the memory
     * available). */
    BOARDSOLVE_ERR_SEARCH_FAILED = 18,
    /* A failure inside the library (a bug): the message says where. */
    BOARDSOLVE_ERR_INTERNAL = 19
};

/* The size of boardsolve_error's message, its final NUL included. */
#define BOARDSOLVE_MESSAGE_SIZE 512

/* Why a call failed, written by the call when the caller passes one. */
typedef struct boardsolve_error {
    /* What the call returned. */
    boardsolve_code code;
    /* Why, in English: UTF-8, NUL-terminated, cut at a character boundary
     * if longer; empty on success. */
    char message[BOARDSOLVE_MESSAGE_SIZE];
} boardsolve_error;

/* A short description of a code ("malformed position"): a static string,
 * never NULL ("unknown code" for a code this version does not know). */
const char *boardsolve_code_text(boardsolve_code code);

/* The library's version ("0.3.0"): a static string. */
const char *boardsolve_version(void);

/* ------------------------------------------------------------------------
 * Tables
 */

/* An open database file, or a game answered without one. */
typedef struct boardsolve_table boardsolve_table;

/* Opens and checks the database file at `path` (a file `generator`
 * wrote, sorted, dense or packed) and sets *table to it. A file that is
 * an opening book answers the positions past it by search, as `query`
 * does. On failure *table is set to NULL. */
boardsolve_code boardsolve_open(const char *path, boardsolve_table **table,
                                boardsolve_error *error);

/* Sets *table to the game `game` ("connect-four", "tic-tac-toe", ...) in
 * `variant` ("7x6"; "" or NULL for the standard one) answered without a
 * file, as `query --game NAME` answers it when there is no file: from the
 * opening book that comes with the library for its board, if any, and by
 * search past it (one searcher per core, tables of the game's default
 * size). A game answered only from a complete database (British Square)
 * is BOARDSOLVE_ERR_SEARCH_FAILED: open its file. On failure *table is
 * set to NULL. */
boardsolve_code boardsolve_open_game(const char *game, const char *variant,
                                     boardsolve_table **table,
                                     boardsolve_error *error);

/* Closes a table and frees it (NULL: nothing). Positions it parsed stay
 * valid. */
void boardsolve_close(boardsolve_table *table);

/* Reads the file's small lookup index into memory (a few megabytes at
 * most), which makes each later lookup several times faster: worth it
 * before many probes, not for a few (it reads the whole file once).
 * Probing many keys at once does it by itself. Idempotent. */
boardsolve_code boardsolve_build_index(const boardsolve_table *table);

/* What boardsolve_game_text tells. */
typedef int32_t boardsolve_game_field;

enum {
    /* The registry name: "british-square". */
    BOARDSOLVE_GAME_NAME = 0,
    /* The variant, in canonical form: "5x5". */
    BOARDSOLVE_GAME_VARIANT = 1,
    /* The name and variant: "british-square 5x5". */
    BOARDSOLVE_GAME_LABEL = 2,
    /* How positions are written, in a few sentences. */
    BOARDSOLVE_GAME_NOTATION = 3,
    /* How a move is written. */
    BOARDSOLVE_GAME_MOVE_NOTATION = 4,
    /* What a value means, in words. */
    BOARDSOLVE_GAME_SCORE_MEANING = 5,
    /* What the first player is called: "X". */
    BOARDSOLVE_GAME_FIRST_PLAYER = 6,
    /* What the second player is called: "O". */
    BOARDSOLVE_GAME_SECOND_PLAYER = 7,
    /* The word for an even result: "tie" or "draw". */
    BOARDSOLVE_GAME_EVEN_RESULT = 8
};

/* A text about the table's game, valid until the table is closed; NULL
 * for a NULL table or a field this version does not know. */
const char *boardsolve_game_text(const boardsolve_table *table,
                                 boardsolve_game_field field);

/* Bounds each later call on the table that searches to `seconds`
 * (0: no limit, the default): a call still searching then fails with
 * BOARDSOLVE_ERR_TIMED_OUT. BOARDSOLVE_ERR_INVALID_ARGUMENT for a
 * negative or NaN limit. A table of a complete file never searches. */
boardsolve_code boardsolve_set_time_limit(const boardsolve_table *table,
                                          double seconds);

/* Stops the searches of every call running on the table, from any
 * thread: those calls fail with BOARDSOLVE_ERR_STOPPED soon after (within
 * milliseconds); later calls are answered as before. */
boardsolve_code boardsolve_stop(const boardsolve_table *table);

/* ------------------------------------------------------------------------
 * Positions
 */

/* A position of a game, parsed and checked once: immutable. */
typedef struct boardsolve_position boardsolve_position;

/* Parses a position of the table's game in its notation: the moves from
 * the start ("b2 c3"; Connect Four's "4453") or a picture of the board;
 * "start" is the start. Sets *position (NULL on failure);
 * BOARDSOLVE_ERR_MALFORMED_POSITION or BOARDSOLVE_ERR_ILLEGAL_POSITION say
 * why it is not one. */
boardsolve_code boardsolve_parse(const boardsolve_table *table,
                                 const char *text,
                                 boardsolve_position **position,
                                 boardsolve_error *error);

/* The position after the move `move` names in the game's notation ("c3";
 * a name boardsolve_probe gives): sets *after (NULL on failure).
 * BOARDSOLVE_ERR_MALFORMED_MOVE or BOARDSOLVE_ERR_ILLEGAL_MOVE say why
 * not. */
boardsolve_code boardsolve_play(const boardsolve_position *position,
                                const char *move, boardsolve_position **after,
                                boardsolve_error *error);

/* The position as text that boardsolve_parse reads back as it (the
 * board, and the side to move and score so far where the board does not
 * tell them): sets *text, to free with boardsolve_string_free. */
boardsolve_code boardsolve_position_text(const boardsolve_position *position,
                                         char **text, boardsolve_error *error);

/* The position's 64-bit key as format-spec.md defines it for its game
 * (*key), and the key a database stores it under, the smallest of its
 * symmetric images (*canonical); either pointer may be NULL. */
boardsolve_code boardsolve_position_key(const boardsolve_position *position,
                                        uint64_t *key, uint64_t *canonical,
                                        boardsolve_error *error);

/* Frees a position (NULL: nothing). */
void boardsolve_position_free(boardsolve_position *position);

/* ------------------------------------------------------------------------
 * Answers
 */

/* How the game ends for a side under perfect play. */
enum {
    BOARDSOLVE_LOSS = -1,
    BOARDSOLVE_TIE = 0,
    BOARDSOLVE_WIN = 1
};

/* The players. */
enum {
    BOARDSOLVE_FIRST = 0,
    BOARDSOLVE_SECOND = 1
};

/* A position answered. */
typedef struct boardsolve_answer {
    /* The value under perfect play, for the side to move. */
    int32_t value;
    /* Plies to the end of the game under perfect play. */
    uint32_t remoteness;
    /* BOARDSOLVE_WIN, BOARDSOLVE_TIE or BOARDSOLVE_LOSS for the side to
     * move, with the score so far where the position tells it. */
    int32_t outcome;
    /* The side to move: BOARDSOLVE_FIRST or BOARDSOLVE_SECOND. */
    int32_t to_move;
    /* The number of legal moves (0 at the end of the game). */
    uint32_t move_count;
} boardsolve_answer;

/* The size of a move's name, its NUL included. */
#define BOARDSOLVE_MOVE_NAME_SIZE 24

/* The most legal moves a position of any game of this version has (Dots
 * and Boxes on 63 edges): an array of this many moves always holds them
 * all. */
#define BOARDSOLVE_MAX_MOVES 64

/* A legal move of an answered position, with its value. */
typedef struct boardsolve_move {
    /* The move's name in the game's notation ("b2", "4", "SE", "pass"),
     * which boardsolve_play reads. */
    char name[BOARDSOLVE_MOVE_NAME_SIZE];
    /* The move's number as the game counts moves (British Square's cell,
     * Connect Four's column from 1, Dots and Boxes' edge); -1 for a
     * pass. */
    int32_t number;
    /* The value if this move is played, then perfect play, for the side
     * making it. */
    int32_t value;
    /* The remoteness of the position the move leads to. */
    uint32_t remoteness;
    /* How much longer this move takes to its end than the best move of
     * its outcome (0 for that move). */
    uint32_t delta_remoteness;
    /* BOARDSOLVE_WIN, BOARDSOLVE_TIE or BOARDSOLVE_LOSS for the side
     * making it. */
    int32_t outcome;
    /* 1 for a move that keeps the position's value, else 0. */
    int32_t best;
} boardsolve_move;

/* Answers a position: its value, remoteness, outcome and side to move in
 * *answer, and its legal moves, best first, in moves[0] up to
 * moves[capacity - 1] (moves may be NULL when capacity is 0):
 * answer->move_count says how many there are, and at most `capacity` are
 * written. */
boardsolve_code boardsolve_probe(const boardsolve_table *table,
                                 const boardsolve_position *position,
                                 boardsolve_answer *answer,
                                 boardsolve_move *moves, size_t capacity,
                                 boardsolve_error *error);

/* The line of perfect play from the position to the end of the game, at
 * each step the first of the best moves: their names separated by
 * spaces ("" at the end of the game). Sets *line, to free with
 * boardsolve_string_free. */
boardsolve_code boardsolve_line(const boardsolve_table *table,
                                const boardsolve_position *position,
                                char **line, boardsolve_error *error);

/* Flags of boardsolve_json. */
enum {
    /* Add the line of perfect play ("pv"), as `query --json --pv`. */
    BOARDSOLVE_JSON_LINE = 1
};

/* The answer of the position `text` as the line `query --json` prints
 * for it, byte for byte (without the newline): parsed, answered and
 * written in one call. Sets *json, to free with boardsolve_string_free;
 * flags: 0 or BOARDSOLVE_JSON_LINE. */
boardsolve_code boardsolve_json(const boardsolve_table *table,
                                const char *text, uint32_t flags, char **json,
                                boardsolve_error *error);

/* ------------------------------------------------------------------------
 * Probing by key, for engines
 */

/* A position's value and remoteness, without its moves. */
typedef struct boardsolve_eval {
    /* The value under perfect play, for the side to move. */
    int32_t value;
    /* Plies to the end of the game under perfect play. */
    uint32_t remoteness;
} boardsolve_eval;

/* The value and remoteness of the position whose 64-bit key is `key`, as
 * format-spec.md lays out the keys of the table's game (any of the
 * position's symmetric images): one lookup, nothing allocated.
 * BOARDSOLVE_ERR_MALFORMED_POSITION for a key no position has;
 * BOARDSOLVE_ERR_UNREACHABLE for a position the file does not hold. */
boardsolve_code boardsolve_probe_key(const boardsolve_table *table,
                                     uint64_t key, boardsolve_eval *eval,
                                     boardsolve_error *error);

/* boardsolve_probe_key of keys[0] to keys[count - 1], looked up together
 * (faster than one by one), into evals[0..count). When codes is not NULL,
 * codes[i] gets the code of key i; a key that fails gets the eval {0, 0}.
 * Returns BOARDSOLVE_OK when every key was answered, else the code of the
 * first that was not, which *error describes. */
boardsolve_code boardsolve_probe_keys(const boardsolve_table *table,
                                      const uint64_t *keys, size_t count,
                                      boardsolve_eval *evals,
                                      boardsolve_code *codes,
                                      boardsolve_error *error);

/* ------------------------------------------------------------------------
 * Strings
 */

/* Frees a string the library returned (NULL: nothing). */
void boardsolve_string_free(char *string);

#ifdef __cplusplus
}
#endif

#endif /* BOARDSOLVE_H */
