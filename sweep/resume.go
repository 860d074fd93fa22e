package sweep

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
)

// operational keys of a spec can change between a run and its resume: they
// steer how the run proceeds, not what a cell measures.
var operational = map[string]bool{
	"keep": true, "out": true, "retries": true, "max_failures": true, "cooldown": true,
	"repeat": true, "order": true, "seed": true, "repeat_auto": true, "max_repeat": true, "over_limit": true,
	"parallel": true, "lane_nodes": true, "control_every": true, "control": true,
	"rounds": true, "rounds_auto": true,
}

// DiffSpecs lists the keys (spec JSON names) in which spec differs from the
// spec saved in an earlier run's sweep.json, ignoring operational keys
// (but the seed of an interleaved run, which drew its rounds' orders: a
// resume replays them).
// Of the DSN only its presence counts (savedDB: the run sampled a
// database): another host or password reaches the same database, or the
// run could not go on.
func DiffSpecs(saved json.RawMessage, savedDB bool, spec Spec) ([]string, error) {
	var old, cur map[string]any
	if err := json.Unmarshal(saved, &old); err != nil {
		return nil, fmt.Errorf("saved spec: %w", err)
	}
	b, err := json.Marshal(spec.Redacted())
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &cur); err != nil {
		return nil, err
	}
	var diff []string
	for k := range merge(old, cur) {
		switch {
		case operational[k] && !(k == "seed" && spec.Interleaved()) || reflect.DeepEqual(old[k], cur[k]):
		case userFileKeys[k]:
			diff = append(diff, userFileDiff(k, old[k], cur[k]))
		default:
			diff = append(diff, fmt.Sprintf("%s (was %s, now %s)", k, show(old[k]), show(cur[k])))
		}
	}
	if now := spec.DBDSN != ""; now != savedDB {
		diff = append(diff, fmt.Sprintf("db_dsn (was %s, now %s)", setOrNot(savedDB), setOrNot(now)))
	}
	sort.Strings(diff)
	return diff, nil
}

func setOrNot(set bool) string {
	if set {
		return "set"
	}
	return "unset"
}

func merge(a, b map[string]any) map[string]bool {
	keys := map[string]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	return keys
}

func show(v any) string {
	if v == nil {
		return "unset"
	}
	b, _ := json.Marshal(v)
	return string(b)
}
