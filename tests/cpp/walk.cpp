// The C library from C++17 (tests/c/run.sh builds it with c++ -std=c++17
// -Wall -Wextra -pedantic -Werror against the installed header): handles
// owned by std::unique_ptr, errors as exceptions. `walk DB [POSITION]`
// plays the first best move from POSITION ("start" by default) to the
// end of the game, checking at each step that the value holds (for the
// side to move, so turned when the turn passes), and that the moves
// played are the line of perfect play the library gives; prints the line
// and the value.

#include <boardsolve.h>

#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

struct close_table {
    void operator()(boardsolve_table *t) const { boardsolve_close(t); }
};
struct free_position {
    void operator()(boardsolve_position *p) const { boardsolve_position_free(p); }
};
struct free_string {
    void operator()(char *s) const { boardsolve_string_free(s); }
};
using table = std::unique_ptr<boardsolve_table, close_table>;
using position = std::unique_ptr<boardsolve_position, free_position>;
using string = std::unique_ptr<char, free_string>;

void check(boardsolve_code code, const boardsolve_error &e) {
    if (code != BOARDSOLVE_OK)
        throw std::runtime_error(std::string(boardsolve_code_text(code)) + ": " + e.message);
}

}  // namespace

int main(int argc, char **argv) try {
    if (argc < 2 || argc > 3) {
        std::fprintf(stderr, "usage: walk DB [POSITION]\n");
        return 2;
    }
    boardsolve_error e{};
    boardsolve_table *raw = nullptr;
    check(boardsolve_open(argv[1], &raw, &e), e);
    table t(raw);
    boardsolve_position *p = nullptr;
    check(boardsolve_parse(t.get(), argc == 3 ? argv[2] : "start", &p, &e), e);
    position here(p);

    char *line_raw = nullptr;
    check(boardsolve_line(t.get(), here.get(), &line_raw, &e), e);
    string line(line_raw);

    boardsolve_answer first{};
    check(boardsolve_probe(t.get(), here.get(), &first, nullptr, 0, &e), e);
    std::vector<boardsolve_move> moves(BOARDSOLVE_MAX_MOVES);
    std::string played;
    for (;;) {
        boardsolve_answer a{};
        check(boardsolve_probe(t.get(), here.get(), &a, moves.data(), moves.size(), &e), e);
        if (a.move_count == 0)
            break;
        const boardsolve_move &best = moves[0];
        if (!best.best || best.value != a.value)
            throw std::runtime_error(std::string("the first move does not keep the value: ") +
                                     best.name);
        boardsolve_position *next = nullptr;
        check(boardsolve_play(here.get(), best.name, &next, &e), e);
        here.reset(next);
        played += (played.empty() ? "" : " ") + std::string(best.name);
    }
    if (played != line.get())
        throw std::runtime_error("played " + played + ", the line is " + line.get());
    std::printf("%s: value %d, %u plies: %s\n",
                boardsolve_game_text(t.get(), BOARDSOLVE_GAME_LABEL), first.value,
                first.remoteness, line.get());
    return 0;
} catch (const std::exception &ex) {
    std::fprintf(stderr, "walk: %s\n", ex.what());
    return 1;
}
