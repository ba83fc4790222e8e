package boardsolve_test

import (
	"fmt"
	"log"

	"boardsolve"
)

// The start of British Square from bsq.db, and its best moves (docs/c.md
// shows this example).
func Example() {
	tb, err := boardsolve.Open("bsq.db")
	if err != nil {
		log.Fatal(err)
	}
	defer tb.Close()
	start, err := tb.Parse("start")
	if err != nil {
		log.Fatal(err)
	}
	answer, err := tb.Probe(start)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s: value %+d, remoteness %d\n", tb.Text(boardsolve.GameLabel), answer.Value, answer.Remoteness)
	for _, m := range answer.Moves {
		if m.Best {
			fmt.Println("best move:", m.Name)
		}
	}
	// Output:
	// british-square 5x5: value +2, remoteness 21
	// best move: b2
	// best move: d2
	// best move: b4
	// best move: d4
}
