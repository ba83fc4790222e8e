package boardsolve_test

// Run by tests/go/run.sh, with BOARDSOLVE_DBS the folder tests/c/data.sh
// fills: a database of every game (NAME.db, NAME.packed.db), random
// positions of each (NAME.pos) and the lines `query --json` printed for
// them (NAME.json), and bsq.db, British Square 5x5.

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"boardsolve"
)

var dbs = os.Getenv("BOARDSOLVE_DBS")

var names = []string{"bsq4", "dab", "c4", "dand", "ttt"}

func TestMain(m *testing.M) {
	if dbs == "" {
		fmt.Fprintln(os.Stderr, "BOARDSOLVE_DBS: the folder of tests/c/data.sh (tests/go/run.sh sets it)")
		os.Exit(2)
	}
	// The examples open bsq.db where they run, as a program would.
	if err := os.Chdir(dbs); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	os.Exit(m.Run())
}

func lines(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	s := bufio.NewScanner(f)
	s.Buffer(make([]byte, 1<<20), 1<<20)
	for s.Scan() {
		out = append(out, s.Text())
	}
	return out
}

func open(t *testing.T, name string) *boardsolve.Table {
	t.Helper()
	tb, err := boardsolve.Open(filepath.Join(dbs, name))
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

// What `query --json` says of a position, in the fields compared.
type queryAnswer struct {
	Value         int
	Remoteness    int
	PositionValue string
	Moves         []struct {
		Move            string
		Value           int
		Remoteness      int
		DeltaRemoteness int
		Best            bool
		MoveValue       string
	}
}

func outcome(word string) boardsolve.Outcome {
	switch word {
	case "win":
		return boardsolve.Win
	case "lose":
		return boardsolve.Loss
	}
	return boardsolve.Tie
}

func TestAnswersAreQuerys(t *testing.T) {
	for _, name := range names {
		positions := lines(t, filepath.Join(dbs, name+".pos"))
		expected := lines(t, filepath.Join(dbs, name+".json"))
		if len(positions) == 0 || len(positions) != len(expected) {
			t.Fatalf("%s: %d positions, %d answers", name, len(positions), len(expected))
		}
		for _, file := range []string{name + ".db", name + ".packed.db"} {
			tb := open(t, file)
			keys := make([]uint64, len(positions))
			evals := make([]boardsolve.Eval, len(positions))
			for i, text := range positions {
				line, err := tb.JSON(text, false)
				if err != nil || line != expected[i] {
					t.Fatalf("%s %q: %v\n got  %s\n want %s", file, text, err, line, expected[i])
				}
				var q queryAnswer
				if err := json.Unmarshal([]byte(expected[i]), &q); err != nil {
					t.Fatal(err)
				}
				p, err := tb.Parse(text)
				if err != nil {
					t.Fatal(err)
				}
				a, err := tb.Probe(p)
				if err != nil {
					t.Fatal(err)
				}
				if a.Value != q.Value || a.Remoteness != q.Remoteness || a.Outcome != outcome(q.PositionValue) ||
					len(a.Moves) != len(q.Moves) {
					t.Fatalf("%s %q: %+v, query says %+v", file, text, a, q)
				}
				for j, m := range a.Moves {
					w := q.Moves[j]
					if m.Name != w.Move || m.Value != w.Value || m.Remoteness != w.Remoteness ||
						m.DeltaRemoteness != w.DeltaRemoteness || m.Best != w.Best || m.Outcome != outcome(w.MoveValue) {
						t.Fatalf("%s %q move %d: %+v, query says %+v", file, text, j, m, w)
					}
				}
				key, canonical := p.Key()
				e, err := tb.ProbeKey(key)
				if err != nil || int(e.Value) != a.Value || int(e.Remoteness) != a.Remoteness {
					t.Fatalf("%s %q: key %d: %+v %v", file, text, key, e, err)
				}
				if e2, err := tb.ProbeKey(canonical); err != nil || e2 != e {
					t.Fatalf("%s %q: canonical key %d: %+v %v", file, text, canonical, e2, err)
				}
				keys[i], evals[i] = key, e
				if back, err := tb.Parse(p.String()); err != nil {
					t.Fatal(err)
				} else if k, _ := back.Key(); k != key {
					t.Fatalf("%s %q read back as another position", file, text)
				}
			}
			together, codes, err := tb.ProbeKeys(keys)
			if err != nil {
				t.Fatal(err)
			}
			for i := range keys {
				if together[i] != evals[i] || codes[i] != boardsolve.OK {
					t.Fatalf("%s: key %d together %+v, alone %+v", file, keys[i], together[i], evals[i])
				}
			}
			tb.Close()
		}
	}
}

func code(err error) boardsolve.Code {
	var e *boardsolve.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return -1
}

func TestErrorsAreCodes(t *testing.T) {
	tb := open(t, "bsq4.db")
	defer tb.Close()
	for text, want := range map[string]boardsolve.Code{
		"z9":       boardsolve.ErrMalformed,
		"a1 a1":    boardsolve.ErrIllegal,
		"a1\xff":   boardsolve.ErrMalformed,
		"":         boardsolve.ErrMalformed,
		"b2 c3 d4": boardsolve.OK,
	} {
		_, err := tb.Parse(text)
		if code(err) != want && !(want == boardsolve.OK && err == nil) {
			t.Errorf("Parse(%q): %v (%v), want %v", text, code(err), err, want)
		}
	}
	start, _ := tb.Parse("start")
	if _, err := start.Play("q7"); code(err) != boardsolve.ErrMalformedMove {
		t.Errorf("Play(q7): %v", err)
	}
	b2, _ := start.Play("b2")
	if _, err := b2.Play("b2"); code(err) != boardsolve.ErrIllegalMove {
		t.Errorf("Play(b2) twice: %v", err)
	}
	if _, err := tb.ProbeKey(^uint64(0)); code(err) != boardsolve.ErrMalformed {
		t.Errorf("ProbeKey(max): %v", err)
	}
	_, codes, err := tb.ProbeKeys([]uint64{0, ^uint64(0), 0})
	if code(err) != boardsolve.ErrMalformed || codes[0] != boardsolve.OK || codes[1] != boardsolve.ErrMalformed {
		t.Errorf("ProbeKeys: %v %v", codes, err)
	}
	other := open(t, "ttt.db")
	elsewhere, _ := other.Parse("start")
	if _, err := tb.Probe(elsewhere); code(err) != boardsolve.ErrOtherGame ||
		!strings.Contains(err.Error(), "k-in-a-row 3x3,k=3") {
		t.Errorf("a position of another game: %v", err)
	}
	other.Close()
	// A closed table refuses every call.
	if _, err := other.Parse("start"); code(err) != boardsolve.ErrNull {
		t.Errorf("a closed table: %v", err)
	}
	if _, err := boardsolve.Open(filepath.Join(dbs, "missing.db")); code(err) != boardsolve.ErrMissingFile {
		t.Errorf("a missing file: %v", err)
	}
	if _, err := boardsolve.OpenGame("chess", ""); code(err) != boardsolve.ErrUnknownGame {
		t.Errorf("chess: %v", err)
	}
	if err := tb.SetTimeLimit(-time.Second); code(err) != boardsolve.ErrInvalid {
		t.Errorf("a negative time limit: %v", err)
	}
	if boardsolve.ErrCorrupt.String() != "corrupt database" || boardsolve.Version() == "" {
		t.Errorf("code words, version")
	}
}

func TestConcurrentProbes(t *testing.T) {
	positions := lines(t, filepath.Join(dbs, "dand.pos"))
	expected := lines(t, filepath.Join(dbs, "dand.json"))
	tb := open(t, "dand.packed.db")
	defer tb.Close()
	var wg sync.WaitGroup
	failures := make(chan string, 64)
	for g := 0; g < 16; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for j := range positions {
				i := (j + g*len(positions)/16) % len(positions)
				line, err := tb.JSON(positions[i], false)
				if err != nil || line != expected[i] {
					failures <- fmt.Sprintf("%q: %v", positions[i], err)
					return
				}
				p, _ := tb.Parse(positions[i])
				key, _ := p.Key()
				a, err1 := tb.Probe(p)
				e, err2 := tb.ProbeKey(key)
				if err1 != nil || err2 != nil || int(e.Value) != a.Value {
					failures <- fmt.Sprintf("%q by key: %v %v", positions[i], err1, err2)
					return
				}
			}
		}(g)
	}
	wg.Wait()
	close(failures)
	for f := range failures {
		t.Error(f)
	}
}

func TestSearchesStop(t *testing.T) {
	tb, err := boardsolve.OpenGame("connect-four", "")
	if err != nil {
		t.Fatal(err)
	}
	defer tb.Close()
	// Eight stones: in the book that comes with the library, but every
	// move of it is searched, for seconds.
	tb.SetTimeLimit(time.Millisecond)
	p, _ := tb.Parse("12345671")
	if _, err := tb.Probe(p); code(err) != boardsolve.ErrTimedOut {
		t.Errorf("at the time limit: %v", err)
	}
	tb.SetTimeLimit(0)
	// Stopped every 50 ms until the call returns: a stop before the call
	// has begun stops nothing.
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		for {
			select {
			case <-done:
				return
			case <-time.After(50 * time.Millisecond):
				tb.Stop()
			}
		}
	}()
	_, err = tb.JSON("23175233", false)
	close(done)
	<-stopped
	if code(err) != boardsolve.ErrStopped {
		t.Errorf("stopped: %v", err)
	}
	in, _ := tb.Parse("44")
	if a, err := tb.Probe(in); err != nil || len(a.Moves) != 7 {
		t.Errorf("after: %v", err)
	}
}
