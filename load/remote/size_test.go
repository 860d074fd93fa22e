package remote

import (
	"errors"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"unicode/utf16"

	"github.com/sweep-tool/sweep/load/builtin"
	"github.com/sweep-tool/sweep/load/scenario"
)

// bigScenario is a valid scenario file of about size bytes: one step
// whose body fills it.
func bigScenario(t *testing.T, size int) *scenario.Script {
	t.Helper()
	src := "scenarios:\n  - flow:\n      - post: {url: /api/orders, body: \"" + strings.Repeat("x", size) + "\"}\n"
	s, err := scenario.Parse("big.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// utf16Scenario is a scenario file in UTF-16 with its byte order mark,
// which the YAML parser reads and a JSON string cannot carry.
func utf16Scenario(t *testing.T) *scenario.Script {
	t.Helper()
	data := []byte{0xff, 0xfe}
	for _, c := range utf16.Encode([]rune("scenarios:\n  - flow:\n      - get: {url: /}\n")) {
		data = append(data, byte(c), byte(c>>8))
	}
	s, err := scenario.Parse("wide.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestCheckRequest(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		script *scenario.Script
		want   error
	}{
		{"the driver's own scenario", nil, nil},
		{"a user's scenario", ordersScript(t), nil},
		{"a scenario that leaves a phase its reserve", bigScenario(t, MaxRequestSize-phaseReserve-200), nil},
		{"a scenario that leaves less", bigScenario(t, MaxRequestSize-phaseReserve), ErrRequestTooLarge},
		{"a scenario over the limit", bigScenario(t, 200<<10), ErrRequestTooLarge},
		{"a scenario in UTF-16", utf16Scenario(t), ErrScriptNotUTF8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := CheckRequest(builtin.Options{Script: tc.script})
			if !errors.Is(err, tc.want) || (err == nil) != (tc.want == nil) {
				t.Fatalf("CheckRequest = %v, want %v", err, tc.want)
			}
			if tc.want != nil && !strings.Contains(err.Error(), tc.script.File()) {
				t.Errorf("error %q does not name the file", err)
			}
		})
	}
}

func TestNewRefusesAScenarioThatCannotTravel(t *testing.T) {
	t.Parallel()
	_, err := New(newFake(), Options{Image: "sweep-drive:abc", Builtin: builtin.Options{Script: bigScenario(t, 200<<10)}})
	if !errors.Is(err, ErrRequestTooLarge) {
		t.Fatalf("err = %v, want ErrRequestTooLarge", err)
	}
}

// atLimit is a request whose encoding is MaxRequestSize bytes long.
func atLimit(t *testing.T) Request {
	t.Helper()
	r := Request{Duration: "1s"}
	r.BaseURL = strings.Repeat("a", MaxRequestSize-len(encode(t, r)))
	return r
}

func TestEncodeStopsAtMaxRequestSize(t *testing.T) {
	t.Parallel()
	r := atLimit(t)
	if text := encode(t, r); len(text) != MaxRequestSize {
		t.Fatalf("encoded %d bytes, want %d", len(text), MaxRequestSize)
	}
	r.BaseURL += "a"
	if _, err := r.Encode(); !errors.Is(err, ErrRequestTooLarge) {
		t.Fatalf("a byte over: err = %v, want ErrRequestTooLarge", err)
	}
}

// TestMaxRequestSizeIsLinuxs checks the limit MaxRequestSize rests on: a
// process starts with the largest request in its environment, and not
// with a byte more.
func TestMaxRequestSizeIsLinuxs(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("the limit is Linux's")
	}
	bin, err := exec.LookPath("true")
	if err != nil {
		t.Skip("no true(1) to start")
	}
	start := func(r Request) error {
		cmd := exec.Command(bin)
		cmd.Env = []string{RequestEnv + "=" + encodeUnchecked(t, r)}
		return cmd.Run()
	}
	r := atLimit(t)
	if err := start(r); err != nil {
		t.Fatalf("a process with a request of MaxRequestSize: %v", err)
	}
	r.BaseURL += "a"
	if err := start(r); !errors.Is(err, syscall.E2BIG) {
		t.Fatalf("a byte more: err = %v, want E2BIG", err)
	}
}

// encodeUnchecked is r encoded whatever its size.
func encodeUnchecked(t *testing.T, r Request) string {
	t.Helper()
	text, err := r.encode(1 << 30)
	if err != nil {
		t.Fatal(err)
	}
	return text
}

// TestEncodeIsSafeFromThePlatformsExpansion: Swarm reads {{ … }} in an
// environment value as a Go template of its own (a scenario's {{ $vu }}
// failed the load service's creation on the fixture: "undefined variable
// $vu") and Kubernetes expands $(VAR) and $$; the encoded request holds
// neither "{{" nor "$", and decodes to the scenario as written.
func TestEncodeIsSafeFromThePlatformsExpansion(t *testing.T) {
	t.Parallel()
	yaml := "scenarios:\n  - flow:\n      - get: {url: \"/a/{{ $vu }}/{{{x}}}\", headers: {X-Cost: \"$$(HOME) $(PATH) 5$\"}}\n"
	r := Request{BaseURL: "http://h/", Duration: "1s", Script: &Source{File: "s.yaml", YAML: yaml}}
	enc, err := r.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(enc, "{{") || strings.Contains(enc, "$") {
		t.Errorf("encoded request holds {{ or $: %s", enc)
	}
	back, err := DecodeRequest([]byte(enc))
	if err != nil || back.Script == nil || back.Script.YAML != yaml {
		t.Errorf("decoded %+v (%v), want the scenario as written", back.Script, err)
	}
}
