// A full answer from an anchor Connect Four solver built from a local
// checkout of its source (see benches/c4_anchor.sh): for each position
// given on the command line (columns played from the empty board, 1-7), the
// exact score of the position and of every legal move, on one solver whose
// table all of them share. Prints one line a position:
//   <moves> <score> <score after column 1> ... <score after column 7>
// with `-` for a full column; scores are for the side to move in the
// position (the same scale as `query`'s values).
#include <chrono>
#include <cstdio>
#include <string>

#include "solver/position.h"
#include "solver/solver.h"

int main(int argc, char **argv) {
    Solver solver{};
    for (int a = 1; a < argc; a++) {
        auto start = std::chrono::steady_clock::now();
        std::string moves = argv[a];
        Position pos{};
        bool ok = true;
        for (char c : moves) {
            int col = c - '1';
            if (col < 0 || col >= BOARD_WIDTH || !pos.is_move_valid(col) || pos.is_game_over()) {
                ok = false;
                break;
            }
            pos.move(col);
        }
        if (!ok) {
            std::fprintf(stderr, "not a playable position: %s\n", argv[a]);
            return 2;
        }
        std::string line = moves.empty() ? "start" : moves;
        line += " " + std::to_string(solver.solve_strong(pos));
        for (int col = 0; col < BOARD_WIDTH; col++) {
            if (pos.is_game_over() || !pos.is_move_valid(col)) {
                line += " -";
                continue;
            }
            Position child{pos};
            child.move(col);
            line += " " + std::to_string(-solver.solve_strong(child));
        }
        double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::printf("%s %.3f\n", line.c_str(), s);
        std::fflush(stdout);
    }
    return 0;
}
