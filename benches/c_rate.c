/*
 * The C library's rates, beside the probe crate's
 * (probe/examples/key_rate.rs; benches/c_probe.sh runs both by turns):
 * `c_rate DB KEYS_FILE POSITIONS_FILE [PASSES]` prints one JSON line, each
 * rate the median of PASSES timed passes (5 by default), on the calling
 * thread:
 *
 *   keys_per_s        boardsolve_probe_key of every key of KEYS_FILE
 *                     (little-endian uint64s), one call a key, after
 *                     boardsolve_build_index;
 *   keys_batch_per_s  boardsolve_probe_keys of all of them in one call;
 *   probe_per_s       boardsolve_parse and boardsolve_probe of every
 *                     position of POSITIONS_FILE (one a line): the whole
 *                     answer, every move with its value, into an array;
 *   json_per_s        boardsolve_json of every position: parsed, answered,
 *                     written as `query --json` writes it, and freed.
 */
#define _POSIX_C_SOURCE 200809L

#include <boardsolve.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static char *read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    char *data;
    long n;
    if (!f) {
        perror(path);
        exit(1);
    }
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    data = malloc((size_t)n + 1);
    if (fread(data, 1, (size_t)n, f) != (size_t)n) {
        perror(path);
        exit(1);
    }
    fclose(f);
    data[n] = 0;
    *size = (size_t)n;
    return data;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *rates, int n) {
    qsort(rates, (size_t)n, sizeof *rates, by_value);
    return rates[n / 2];
}

/* Keeps the compiler from dropping what the passes compute. */
static volatile uint64_t sink;

int main(int argc, char **argv) {
    boardsolve_table *t;
    boardsolve_error e;
    size_t key_bytes, text_bytes, n_keys, n_pos = 0, i;
    uint64_t *keys;
    char *text, **positions, *line;
    boardsolve_eval *evals;
    double rates[4][64];
    int passes = argc > 4 ? atoi(argv[4]) : 5, p;
    if (argc < 4 || passes < 1 || passes > 64) {
        fprintf(stderr, "usage: c_rate DB KEYS_FILE POSITIONS_FILE [PASSES, 1 to 64]\n");
        return 2;
    }
    if (boardsolve_open(argv[1], &t, &e) != BOARDSOLVE_OK) {
        fprintf(stderr, "%s\n", e.message);
        return 1;
    }
    keys = (uint64_t *)(void *)read_file(argv[2], &key_bytes);
    n_keys = key_bytes / 8;
    text = read_file(argv[3], &text_bytes);
    positions = malloc((text_bytes / 2 + 1) * sizeof *positions);
    for (line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
        positions[n_pos++] = line;
    evals = malloc(n_keys * sizeof *evals);
    boardsolve_build_index(t);

    for (p = 0; p < passes; p++) {
        uint64_t sum = 0;
        double t0 = now();
        for (i = 0; i < n_keys; i++) {
            boardsolve_eval v;
            if (boardsolve_probe_key(t, keys[i], &v, NULL) == BOARDSOLVE_OK)
                sum += (uint64_t)v.value ^ v.remoteness;
        }
        rates[0][p] = (double)n_keys / (now() - t0);
        sink = sum;
    }
    for (p = 0; p < passes; p++) {
        uint64_t sum = 0;
        double t0 = now();
        boardsolve_probe_keys(t, keys, n_keys, evals, NULL, NULL);
        for (i = 0; i < n_keys; i++)
            sum += (uint64_t)evals[i].value ^ evals[i].remoteness;
        rates[1][p] = (double)n_keys / (now() - t0);
        sink = sum;
    }
    for (p = 0; p < passes; p++) {
        uint64_t sum = 0;
        double t0 = now();
        for (i = 0; i < n_pos; i++) {
            boardsolve_position *at;
            boardsolve_answer a;
            boardsolve_move moves[BOARDSOLVE_MAX_MOVES];
            if (boardsolve_parse(t, positions[i], &at, NULL) == BOARDSOLVE_OK) {
                if (boardsolve_probe(t, at, &a, moves, BOARDSOLVE_MAX_MOVES, NULL) == BOARDSOLVE_OK)
                    sum += a.remoteness;
                boardsolve_position_free(at);
            }
        }
        rates[3][p] = (double)n_pos / (now() - t0);
        sink = sum;
    }
    for (p = 0; p < passes; p++) {
        uint64_t sum = 0;
        double t0 = now();
        for (i = 0; i < n_pos; i++) {
            char *json;
            if (boardsolve_json(t, positions[i], 0, &json, NULL) == BOARDSOLVE_OK) {
                sum += (unsigned char)json[0];
                boardsolve_string_free(json);
            }
        }
        rates[2][p] = (double)n_pos / (now() - t0);
        sink = sum;
    }
    printf("{\"c_library\":{\"keys\":%zu,\"positions\":%zu,\"keys_per_s\":%.0f,"
           "\"keys_batch_per_s\":%.0f,\"probe_per_s\":%.0f,\"json_per_s\":%.0f}}\n",
           n_keys, n_pos, median(rates[0], passes), median(rates[1], passes),
           median(rates[3], passes), median(rates[2], passes));
    free(evals);
    free(positions);
    free(text);
    free(keys);
    boardsolve_close(t);
    return 0;
}
