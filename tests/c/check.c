/*
 * The C library as a C program meets it, built against the installed
 * library (tests/c/run.sh: cc -std=c99 -Wall -Wextra -pedantic -Werror,
 * flags from pkg-config). One mode a run:
 *
 *   check answers DB POSITIONS EXPECTED
 *       every position of POSITIONS (one a line) answered as `query
 *       --json` answered it (EXPECTED, a line each): the JSON byte for
 *       byte, the value, remoteness, outcome, side to move and every
 *       move of boardsolve_probe, the value by key alone and in a batch,
 *       the text read back, a move played, the line of perfect play;
 *   check threads DB POSITIONS EXPECTED THREADS
 *       the same JSON and keys from THREADS threads on one table at once;
 *   check errors DB OTHER_DB SCRATCH_DIR
 *       every bad argument a code with a message, never a crash: NULLs,
 *       handles of another kind, text that is not UTF-8, a position of
 *       another game, a missing, damaged and truncated file;
 *   check search
 *       Connect Four from the book that comes with the library: a search
 *       past it stopped by its time limit and by boardsolve_stop from
 *       another thread, and the table answering after.
 *
 * Prints "check MODE: ok ..." and exits 0 when every check holds, else
 * names the first that does not and exits 1.
 */
#define _POSIX_C_SOURCE 200809L

#include <boardsolve.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The structures have the sizes the library's code gives them. */
typedef char answer_size[sizeof(boardsolve_answer) == 20 ? 1 : -1];
typedef char move_size[sizeof(boardsolve_move) == 48 ? 1 : -1];
typedef char eval_size[sizeof(boardsolve_eval) == 8 ? 1 : -1];
typedef char error_size[sizeof(boardsolve_error) == 516 ? 1 : -1];

static void fail(const char *what, const char *detail) {
    fprintf(stderr, "check: FAILED: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    exit(1);
}

static void fail_at(int line, const char *cond, const char *detail) {
    fprintf(stderr, "check: FAILED: check.c:%d: %s: %s\n", line, cond, detail ? detail : "");
    exit(1);
}

#define CHECK(cond, detail)                         \
    do {                                            \
        if (!(cond))                                \
            fail_at(__LINE__, #cond, detail);       \
    } while (0)

/* A code the call must have returned, with the error it wrote. */
static void expect(boardsolve_code got, boardsolve_code want, const boardsolve_error *e,
                   const char *what) {
    char detail[700];
    if (got == want && (e == NULL || e->code == got))
        return;
    snprintf(detail, sizeof detail, "got %d (%s), want %d (%s): %s", (int)got,
             boardsolve_code_text(got), (int)want, boardsolve_code_text(want),
             e ? e->message : "");
    fail(what, detail);
}

/* ------------------------------------------------------------------------
 * Files, lines and JSON fields */

typedef struct {
    char *text;
    char **lines;
    size_t count;
} lines_t;

static lines_t read_lines(const char *path) {
    lines_t l = {0, 0, 0};
    FILE *f = fopen(path, "rb");
    long size;
    size_t cap = 64, i, n;
    if (!f)
        fail("cannot open", path);
    fseek(f, 0, SEEK_END);
    size = ftell(f);
    fseek(f, 0, SEEK_SET);
    l.text = malloc((size_t)size + 1);
    n = fread(l.text, 1, (size_t)size, f);
    fclose(f);
    l.text[n] = 0;
    l.lines = malloc(cap * sizeof *l.lines);
    for (i = 0; i < n;) {
        char *start = l.text + i, *end = strchr(start, '\n');
        if (!end)
            end = l.text + n;
        *end = 0;
        if (l.count == cap) {
            cap *= 2;
            l.lines = realloc(l.lines, cap * sizeof *l.lines);
        }
        l.lines[l.count++] = start;
        i = (size_t)(end - l.text) + 1;
    }
    return l;
}

static void free_lines(lines_t *l) {
    free(l->text);
    free(l->lines);
}

/* The integer after the first `"key":` at or after `from`. */
static long json_int(const char *from, const char *key, const char **after) {
    char pattern[64];
    const char *at;
    snprintf(pattern, sizeof pattern, "\"%s\":", key);
    at = strstr(from, pattern);
    CHECK(at != NULL, key);
    at += strlen(pattern);
    if (after)
        *after = at;
    return strtol(at, NULL, 10);
}

/* The string after the first `"key":"` at or after `from`, into out. */
static void json_str(const char *from, const char *key, char *out, size_t size) {
    char pattern[64];
    const char *at, *end;
    snprintf(pattern, sizeof pattern, "\"%s\":\"", key);
    at = strstr(from, pattern);
    CHECK(at != NULL, key);
    at += strlen(pattern);
    end = strchr(at, '"');
    CHECK(end != NULL && (size_t)(end - at) < size, key);
    memcpy(out, at, (size_t)(end - at));
    out[end - at] = 0;
}

static int outcome_of(const char *word) {
    if (strcmp(word, "win") == 0)
        return BOARDSOLVE_WIN;
    if (strcmp(word, "lose") == 0)
        return BOARDSOLVE_LOSS;
    CHECK(strcmp(word, "tie") == 0, word);
    return BOARDSOLVE_TIE;
}

static boardsolve_table *open_table(const char *path) {
    boardsolve_table *t = NULL;
    boardsolve_error e;
    expect(boardsolve_open(path, &t, &e), BOARDSOLVE_OK, &e, path);
    CHECK(t != NULL, path);
    return t;
}

/* ------------------------------------------------------------------------
 * answers */

/* One position against its line of `query --json`; its key into *key. */
static void check_one(boardsolve_table *t, const char *text, const char *expected, uint64_t *key,
                      boardsolve_eval *eval) {
    boardsolve_error e;
    boardsolve_position *p = NULL, *again = NULL, *after = NULL;
    boardsolve_answer a;
    boardsolve_move moves[BOARDSOLVE_MAX_MOVES];
    boardsolve_eval by_key;
    char *json = NULL, *back = NULL, *line = NULL, word[32];
    const char *m;
    uint64_t canonical, key_again;
    uint32_t i;

    expect(boardsolve_json(t, text, 0, &json, &e), BOARDSOLVE_OK, &e, text);
    if (strcmp(json, expected) != 0) {
        fprintf(stderr, "library: %s\nquery:   %s\n", json, expected);
        fail("JSON differs from query --json", text);
    }
    boardsolve_string_free(json);

    expect(boardsolve_parse(t, text, &p, &e), BOARDSOLVE_OK, &e, text);
    expect(boardsolve_probe(t, p, &a, moves, BOARDSOLVE_MAX_MOVES, &e), BOARDSOLVE_OK, &e, text);
    CHECK(a.value == json_int(expected, "value", NULL), text);
    CHECK(a.remoteness == (uint32_t)json_int(expected, "remoteness", NULL), text);
    json_str(expected, "positionValue", word, sizeof word);
    CHECK(a.outcome == outcome_of(word), text);
    json_str(expected, "to_move", word, sizeof word);
    CHECK(strcmp(word, boardsolve_game_text(t, a.to_move == BOARDSOLVE_FIRST
                                                   ? BOARDSOLVE_GAME_FIRST_PLAYER
                                                   : BOARDSOLVE_GAME_SECOND_PLAYER)) == 0,
          text);
    CHECK(a.move_count <= BOARDSOLVE_MAX_MOVES, text);
    m = strstr(expected, "\"moves\":[");
    CHECK(m != NULL, text);
    for (i = 0; i < a.move_count; i++) {
        char name[BOARDSOLVE_MOVE_NAME_SIZE];
        const char *best;
        json_str(m, "move", name, sizeof name);
        CHECK(strcmp(name, moves[i].name) == 0, text);
        CHECK(moves[i].value == json_int(m, "value", NULL), text);
        CHECK(moves[i].remoteness == (uint32_t)json_int(m, "remoteness", NULL), text);
        CHECK(moves[i].delta_remoteness == (uint32_t)json_int(m, "deltaRemoteness", NULL), text);
        best = strstr(m, "\"best\":");
        CHECK(best != NULL, text);
        CHECK(moves[i].best == (strncmp(best + 7, "true", 4) == 0), text);
        json_str(m, "moveValue", word, sizeof word);
        CHECK(moves[i].outcome == outcome_of(word), text);
        m = strstr(m, "\"moveValue\":");
        m += 12;
    }
    CHECK(strstr(m, "\"move\":") == NULL, "more moves in query's answer");

    /* By key: the value alone. */
    expect(boardsolve_position_key(p, key, &canonical, &e), BOARDSOLVE_OK, &e, text);
    expect(boardsolve_probe_key(t, *key, &by_key, &e), BOARDSOLVE_OK, &e, text);
    CHECK(by_key.value == a.value && by_key.remoteness == a.remoteness, text);
    expect(boardsolve_probe_key(t, canonical, eval, &e), BOARDSOLVE_OK, &e, text);
    CHECK(eval->value == a.value && eval->remoteness == a.remoteness, text);

    /* Its text reads back as the same position. */
    expect(boardsolve_position_text(p, &back, &e), BOARDSOLVE_OK, &e, text);
    expect(boardsolve_parse(t, back, &again, &e), BOARDSOLVE_OK, &e, back);
    expect(boardsolve_position_key(again, &key_again, NULL, &e), BOARDSOLVE_OK, &e, back);
    CHECK(key_again == *key, text);

    /* The line of perfect play: one move a ply to the end. */
    expect(boardsolve_line(t, p, &line, &e), BOARDSOLVE_OK, &e, text);
    {
        uint32_t words = 0;
        const char *c;
        for (c = line; *c; c++)
            words += (c == line || c[-1] == ' ') && *c != ' ';
        CHECK(words == a.remoteness, text);
    }
    if (a.move_count > 0) {
        expect(boardsolve_play(p, moves[0].name, &after, &e), BOARDSOLVE_OK, &e, moves[0].name);
        CHECK(after != NULL, text);
    }
    boardsolve_string_free(line);
    boardsolve_string_free(back);
    boardsolve_position_free(after);
    boardsolve_position_free(again);
    boardsolve_position_free(p);
}

static int answers(const char *db, const char *positions, const char *expected) {
    lines_t in = read_lines(positions), out = read_lines(expected);
    boardsolve_table *t = open_table(db);
    uint64_t *keys = malloc((in.count + 1) * sizeof *keys);
    boardsolve_eval *evals = malloc((in.count + 1) * sizeof *evals);
    boardsolve_eval *together = malloc((in.count + 1) * sizeof *together);
    boardsolve_code *codes = malloc((in.count + 1) * sizeof *codes);
    boardsolve_error e;
    size_t i;
    CHECK(in.count == out.count && in.count > 0, positions);
    for (i = 0; i < in.count; i++)
        check_one(t, in.lines[i], out.lines[i], &keys[i], &evals[i]);
    /* The keys together, with the lookup index. */
    expect(boardsolve_build_index(t), BOARDSOLVE_OK, NULL, "index");
    expect(boardsolve_probe_keys(t, keys, in.count, together, codes, &e), BOARDSOLVE_OK, &e,
           "keys");
    for (i = 0; i < in.count; i++) {
        CHECK(codes[i] == BOARDSOLVE_OK, in.lines[i]);
        CHECK(together[i].value == evals[i].value, in.lines[i]);
        CHECK(together[i].remoteness == evals[i].remoteness, in.lines[i]);
    }
    printf("check answers: ok, %zu positions of %s (%s)\n", in.count,
           boardsolve_game_text(t, BOARDSOLVE_GAME_LABEL), db);
    boardsolve_close(t);
    free(keys);
    free(evals);
    free(together);
    free(codes);
    free_lines(&in);
    free_lines(&out);
    return 0;
}

/* ------------------------------------------------------------------------
 * threads */

typedef struct {
    const boardsolve_table *table;
    const lines_t *in, *out;
    size_t offset;
    int failures;
} work_t;

static void *work(void *arg) {
    work_t *w = arg;
    size_t n = w->in->count, j;
    for (j = 0; j < n; j++) {
        size_t i = (j + w->offset) % n;
        char *json = NULL;
        boardsolve_position *p = NULL;
        boardsolve_answer a;
        boardsolve_eval v;
        uint64_t key;
        if (boardsolve_json(w->table, w->in->lines[i], 0, &json, NULL) != BOARDSOLVE_OK ||
            strcmp(json, w->out->lines[i]) != 0)
            w->failures++;
        boardsolve_string_free(json);
        if (boardsolve_parse(w->table, w->in->lines[i], &p, NULL) != BOARDSOLVE_OK ||
            boardsolve_probe(w->table, p, &a, NULL, 0, NULL) != BOARDSOLVE_OK ||
            boardsolve_position_key(p, &key, NULL, NULL) != BOARDSOLVE_OK ||
            boardsolve_probe_key(w->table, key, &v, NULL) != BOARDSOLVE_OK || v.value != a.value ||
            v.remoteness != a.remoteness)
            w->failures++;
        boardsolve_position_free(p);
    }
    return NULL;
}

static int threads(const char *db, const char *positions, const char *expected, int count) {
    lines_t in = read_lines(positions), out = read_lines(expected);
    boardsolve_table *t = open_table(db);
    pthread_t ids[64];
    work_t works[64];
    int i, failures = 0;
    CHECK(count > 0 && count <= 64, "1 to 64 threads");
    CHECK(in.count == out.count && in.count > 0, positions);
    for (i = 0; i < count; i++) {
        works[i].table = t;
        works[i].in = &in;
        works[i].out = &out;
        works[i].offset = (size_t)i * in.count / (size_t)count;
        works[i].failures = 0;
        CHECK(pthread_create(&ids[i], NULL, work, &works[i]) == 0, "pthread_create");
    }
    for (i = 0; i < count; i++) {
        pthread_join(ids[i], NULL);
        failures += works[i].failures;
    }
    CHECK(failures == 0, "answers from threads differ");
    printf("check threads: ok, %d threads x %zu positions of %s\n", count, in.count,
           boardsolve_game_text(t, BOARDSOLVE_GAME_LABEL));
    boardsolve_close(t);
    free_lines(&in);
    free_lines(&out);
    return 0;
}

/* ------------------------------------------------------------------------
 * errors */

static void copy_file(const char *from, const char *to) {
    FILE *f = fopen(from, "rb"), *g;
    char buf[65536];
    size_t n;
    CHECK(f != NULL, from);
    g = fopen(to, "wb");
    CHECK(g != NULL, to);
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        CHECK(fwrite(buf, 1, n, g) == n, to);
    fclose(f);
    fclose(g);
}

static int errors(const char *db, const char *other_db, const char *scratch) {
    boardsolve_table *t = open_table(db), *other = open_table(other_db), *none = (void *)1;
    boardsolve_position *p = (void *)1, *elsewhere = NULL, *after = (void *)1;
    boardsolve_answer a;
    boardsolve_eval v;
    boardsolve_error e;
    char *s = (void *)1, path[4096], bad[] = {'a', (char)0xff, '1', 0};
    boardsolve_code code;
    FILE *f;
    int i;

    /* NULL where a value is needed; out-pointers set to NULL on failure. */
    expect(boardsolve_open(NULL, &none, &e), BOARDSOLVE_ERR_NULL, &e, "open NULL");
    CHECK(none == NULL && strcmp(e.message, "path is NULL") == 0, e.message);
    expect(boardsolve_open(db, NULL, &e), BOARDSOLVE_ERR_NULL, &e, "open to NULL");
    expect(boardsolve_open_game(NULL, "", &none, &e), BOARDSOLVE_ERR_NULL, &e, "game NULL");
    expect(boardsolve_parse(NULL, "start", &p, &e), BOARDSOLVE_ERR_NULL, &e, "parse NULL table");
    CHECK(p == NULL, "parse sets NULL");
    expect(boardsolve_parse(t, NULL, &p, &e), BOARDSOLVE_ERR_NULL, &e, "parse NULL text");
    expect(boardsolve_parse(t, "start", NULL, &e), BOARDSOLVE_ERR_NULL, &e, "parse to NULL");
    expect(boardsolve_play(NULL, "a1", &after, &e), BOARDSOLVE_ERR_NULL, &e, "play NULL");
    CHECK(after == NULL, "play sets NULL");
    expect(boardsolve_probe(t, NULL, &a, NULL, 0, &e), BOARDSOLVE_ERR_NULL, &e, "probe NULL");
    expect(boardsolve_probe_key(NULL, 0, &v, &e), BOARDSOLVE_ERR_NULL, &e, "key NULL table");
    expect(boardsolve_probe_key(t, 0, NULL, &e), BOARDSOLVE_ERR_NULL, &e, "key NULL eval");
    expect(boardsolve_probe_keys(t, NULL, 2, &v, NULL, &e), BOARDSOLVE_ERR_NULL, &e, "keys NULL");
    expect(boardsolve_json(t, "start", 0, NULL, &e), BOARDSOLVE_ERR_NULL, &e, "json to NULL");
    expect(boardsolve_line(t, NULL, &s, &e), BOARDSOLVE_ERR_NULL, &e, "line NULL");
    CHECK(s == NULL, "line sets NULL");
    expect(boardsolve_position_text(NULL, &s, NULL), BOARDSOLVE_ERR_NULL, NULL, "text NULL");
    expect(boardsolve_stop(NULL), BOARDSOLVE_ERR_NULL, NULL, "stop NULL");
    CHECK(boardsolve_game_text(NULL, BOARDSOLVE_GAME_NAME) == NULL, "game text NULL");
    CHECK(boardsolve_game_text(t, 1000) == NULL, "game text of no field");
    boardsolve_close(NULL);
    boardsolve_position_free(NULL);
    boardsolve_string_free(NULL);

    /* A handle of another kind. */
    expect(boardsolve_parse(t, "start", &p, &e), BOARDSOLVE_OK, &e, "start");
    expect(boardsolve_parse((const boardsolve_table *)(const void *)p, "start", &after, &e),
           BOARDSOLVE_ERR_INVALID_ARGUMENT, &e, "a position as the table");
    expect(boardsolve_probe(t, (const boardsolve_position *)(const void *)t, &a, NULL, 0, &e),
           BOARDSOLVE_ERR_INVALID_ARGUMENT, &e, "a table as the position");
    expect(boardsolve_json(t, "start", 8, &s, &e), BOARDSOLVE_ERR_INVALID_ARGUMENT, &e, "flags");
    expect(boardsolve_set_time_limit(t, -1.0), BOARDSOLVE_ERR_INVALID_ARGUMENT, NULL, "-1 s");

    /* Text that is no position, no move, not UTF-8; keys no position has. */
    expect(boardsolve_parse(t, "z9 q", &after, &e), BOARDSOLVE_ERR_MALFORMED_POSITION, &e, "z9");
    CHECK(strstr(e.message, "z9") != NULL, e.message);
    expect(boardsolve_parse(t, bad, &after, &e), BOARDSOLVE_ERR_MALFORMED_POSITION, &e, "UTF-8");
    CHECK(strstr(e.message, "not UTF-8") != NULL, e.message);
    expect(boardsolve_play(p, "z9", &after, &e), BOARDSOLVE_ERR_MALFORMED_MOVE, &e, "move z9");
    expect(boardsolve_play(p, bad, &after, &e), BOARDSOLVE_ERR_MALFORMED_MOVE, &e, "move UTF-8");
    expect(boardsolve_json(t, "z9", 0, &s, &e), BOARDSOLVE_ERR_MALFORMED_POSITION, &e, "json z9");
    expect(boardsolve_probe_key(t, UINT64_MAX, &v, &e), BOARDSOLVE_ERR_MALFORMED_POSITION, &e,
           "key of no position");
    {
        /* A position longer than any line of query: refused, quoted short. */
        char *long_text = malloc(10000);
        memset(long_text, 'a', 9999);
        long_text[9999] = 0;
        expect(boardsolve_parse(t, long_text, &after, &e), BOARDSOLVE_ERR_MALFORMED_POSITION, &e,
               "a long text");
        CHECK(strlen(e.message) < 200, e.message);
        free(long_text);
    }

    /* A position of another game. */
    expect(boardsolve_parse(other, "start", &elsewhere, &e), BOARDSOLVE_OK, &e, "other start");
    expect(boardsolve_probe(t, elsewhere, &a, NULL, 0, &e), BOARDSOLVE_ERR_OTHER_GAME, &e,
           "position of another game");
    expect(boardsolve_line(t, elsewhere, &s, &e), BOARDSOLVE_ERR_OTHER_GAME, &e, "line of it");

    /* Files: missing, a folder, damaged, cut while open. */
    snprintf(path, sizeof path, "%s/missing.db", scratch);
    expect(boardsolve_open(path, &none, &e), BOARDSOLVE_ERR_MISSING_FILE, &e, path);
    expect(boardsolve_open(scratch, &none, &e), BOARDSOLVE_ERR_UNUSABLE_FILE, &e, scratch);
    snprintf(path, sizeof path, "%s/damaged.db", scratch);
    copy_file(db, path);
    f = fopen(path, "r+b");
    CHECK(f != NULL, path);
    fseek(f, 40, SEEK_SET);
    fputc('!', f);
    fclose(f);
    expect(boardsolve_open(path, &none, &e), BOARDSOLVE_ERR_DAMAGED_FILE, &e, path);
    snprintf(path, sizeof path, "%s/cut.db", scratch);
    copy_file(db, path);
    {
        boardsolve_table *cut = open_table(path);
        boardsolve_position *q = NULL;
        expect(boardsolve_parse(cut, "b2 c3", &q, &e), BOARDSOLVE_OK, &e, "b2 c3");
        expect(boardsolve_probe(cut, q, &a, NULL, 0, &e), BOARDSOLVE_OK, &e, "before the cut");
        CHECK(truncate(path, 4096) == 0, path);
        expect(boardsolve_probe(cut, q, &a, NULL, 0, &e), BOARDSOLVE_ERR_CORRUPT, &e,
               "after the cut");
        CHECK(strstr(e.message, "query verify") != NULL, e.message);
        expect(boardsolve_json(cut, "b2", 0, &s, &e), BOARDSOLVE_ERR_CORRUPT, &e, "json cut");
        boardsolve_position_free(q);
        boardsolve_close(cut);
    }
    /* A message too long for the structure is cut, NUL-terminated. */
    memset(path, 'x', 1000);
    path[0] = '/';
    path[1000] = 0;
    code = boardsolve_open(path, &none, &e);
    CHECK(code == BOARDSOLVE_ERR_MISSING_FILE || code == BOARDSOLVE_ERR_UNUSABLE_FILE, e.message);
    CHECK(strlen(e.message) == BOARDSOLVE_MESSAGE_SIZE - 1, e.message);
    /* Unknown games. */
    expect(boardsolve_open_game("chess", NULL, &none, &e), BOARDSOLVE_ERR_UNKNOWN_GAME, &e,
           "chess");
    expect(boardsolve_open_game("british-square", "", &none, &e), BOARDSOLVE_ERR_SEARCH_FAILED,
           &e, "british-square without its file");
    /* Every code has its words. */
    for (i = 0; i <= BOARDSOLVE_ERR_INTERNAL; i++)
        CHECK(strcmp(boardsolve_code_text(i), "unknown code") != 0, "code text");
    CHECK(strcmp(boardsolve_code_text(-5), "unknown code") == 0, "code text of no code");
    CHECK(strcmp(boardsolve_version(), "") != 0, "version");

    boardsolve_position_free(elsewhere);
    boardsolve_position_free(p);
    boardsolve_close(other);
    boardsolve_close(t);
    printf("check errors: ok\n");
    return 0;
}

/* ------------------------------------------------------------------------
 * search */

/* What the stopping thread shares with the searching one. */
typedef struct {
    const boardsolve_table *table;
    pthread_mutex_t lock;
    int done;
} stopper_t;

/* Stops the table's searches every 50 ms until the search is done: a
 * stop that comes before the call has begun stops nothing. */
static void *stop_until_done(void *arg) {
    stopper_t *s = arg;
    struct timespec pause = {0, 50 * 1000 * 1000};
    size_t code = BOARDSOLVE_OK;
    for (;;) {
        int done;
        nanosleep(&pause, NULL);
        pthread_mutex_lock(&s->lock);
        done = s->done;
        pthread_mutex_unlock(&s->lock);
        if (done)
            return (void *)code;
        if (boardsolve_stop(s->table) != BOARDSOLVE_OK)
            code = 1;
    }
}

static int search(void) {
    boardsolve_table *t = NULL;
    boardsolve_position *p = NULL, *in_book = NULL;
    boardsolve_answer a;
    boardsolve_error e;
    boardsolve_code code;
    pthread_t stopper;
    stopper_t shared;
    void *stopped;
    char *json = NULL;
    expect(boardsolve_open_game("connect-four", "", &t, &e), BOARDSOLVE_OK, &e, "connect-four");
    CHECK(strcmp(boardsolve_game_text(t, BOARDSOLVE_GAME_LABEL), "connect-four 7x6") == 0,
          "label");
    /* Eight stones: in the book, but every move of it is searched. */
    expect(boardsolve_set_time_limit(t, 0.001), BOARDSOLVE_OK, NULL, "limit");
    expect(boardsolve_parse(t, "12345671", &p, &e), BOARDSOLVE_OK, &e, "12345671");
    expect(boardsolve_probe(t, p, &a, NULL, 0, &e), BOARDSOLVE_ERR_TIMED_OUT, &e, "time limit");
    expect(boardsolve_set_time_limit(t, 0), BOARDSOLVE_OK, NULL, "no limit");
    shared.table = t;
    shared.done = 0;
    pthread_mutex_init(&shared.lock, NULL);
    CHECK(pthread_create(&stopper, NULL, stop_until_done, &shared) == 0, "pthread_create");
    code = boardsolve_json(t, "23175233", 0, &json, &e);
    pthread_mutex_lock(&shared.lock);
    shared.done = 1;
    pthread_mutex_unlock(&shared.lock);
    pthread_join(stopper, &stopped);
    pthread_mutex_destroy(&shared.lock);
    expect(code, BOARDSOLVE_ERR_STOPPED, &e, "stop");
    CHECK(json == NULL, "no JSON");
    CHECK(stopped == (void *)(size_t)BOARDSOLVE_OK, "boardsolve_stop");
    /* In the book, with its moves: answered as before. */
    expect(boardsolve_parse(t, "44", &in_book, &e), BOARDSOLVE_OK, &e, "44");
    expect(boardsolve_probe(t, in_book, &a, NULL, 0, &e), BOARDSOLVE_OK, &e, "44 after");
    CHECK(a.move_count == 7, "44");
    boardsolve_position_free(in_book);
    boardsolve_position_free(p);
    boardsolve_close(t);
    printf("check search: ok\n");
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 5 && strcmp(argv[1], "answers") == 0)
        return answers(argv[2], argv[3], argv[4]);
    if (argc == 6 && strcmp(argv[1], "threads") == 0)
        return threads(argv[2], argv[3], argv[4], atoi(argv[5]));
    if (argc == 5 && strcmp(argv[1], "errors") == 0)
        return errors(argv[2], argv[3], argv[4]);
    if (argc == 2 && strcmp(argv[1], "search") == 0)
        return search();
    fprintf(stderr, "usage: check answers DB POSITIONS EXPECTED | threads DB POSITIONS EXPECTED "
                    "N | errors DB OTHER_DB DIR | search\n");
    return 2;
}
