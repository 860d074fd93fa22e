package builtin

import (
	"errors"
	"time"
)

// user is one virtual user: a connection, a shard to record into, and the
// state of its current iteration. It belongs to one goroutine.
type user struct {
	p          *phase
	c          *client
	shard      *shard
	id         int
	iterations int64 // finished iterations
	back       backoff

	buf   []byte               // the body being sent
	ids   [numResources]string // ids created in this iteration
	paths [numResources]string // "<collection>/<id>" of those
	made  [numResources]bool   // which creates succeeded

	sampled [numOps]bool // the operations whose failed response this user offered as a sample
}

func (p *phase) newUser(i int) *user {
	return &user{
		p:     p,
		c:     newClient(p.ctx, p.t, p.opts.Timeout, &p.stop),
		shard: p.rec.shardFor(i),
		id:    i,
		buf:   make([]byte, 0, 1024),
	}
}

// iterate runs one iteration; a non-zero sched is its scheduled start
// (open model). An iteration cut short by the end of the phase does not
// count.
func (u *user) iterate(sched time.Time) {
	var finished bool
	if u.p.opts.Scenario == ScenarioGet {
		_, _, stopped := u.call(opRead, "GET", u.p.t.uri, nil, 200, sched, false)
		finished = !stopped
	} else {
		finished = u.crud(sched)
	}
	if finished {
		u.iterations++
	}
}

// crud creates the nine resources (skipping those whose references could
// not be created), reads and updates each, and deletes them in reverse
// order. It reports false when the phase ended under it.
func (u *user) crud(sched time.Time) bool {
	n := int64(u.id)*1_000_000 + u.iterations
	for i := range resources {
		r := &resources[i]
		u.made[i] = false
		if !u.depsMade(r.deps) {
			continue
		}
		u.buf = r.create.render(u.buf[:0], &u.ids, "", n)
		id, ok, stopped := u.call(opCreate, "POST", u.p.collections[i], u.buf, 201, sched, true)
		sched = time.Time{} // only the first request answers to the schedule
		if stopped {
			return false
		}
		if ok {
			u.made[i], u.ids[i] = true, id
			u.paths[i] = u.p.collections[i] + "/" + id
		}
	}
	return u.readUpdateDelete(n)
}

func (u *user) readUpdateDelete(n int64) bool {
	for i := range resources {
		if _, _, stopped := u.callIfMade(i, opRead, "GET", nil); stopped {
			return false
		}
	}
	for i := range resources {
		if u.made[i] {
			u.buf = resources[i].update.render(u.buf[:0], &u.ids, u.ids[i], n)
		}
		if _, _, stopped := u.callIfMade(i, opUpdate, "PUT", u.buf); stopped {
			return false
		}
	}
	for i := numResources - 1; i >= 0; i-- {
		if _, _, stopped := u.callIfMade(i, opDelete, "DELETE", nil); stopped {
			return false
		}
	}
	return true
}

func (u *user) callIfMade(i int, o op, method string, body []byte) (string, bool, bool) {
	if !u.made[i] {
		return "", false, false
	}
	want := 200
	if o == opDelete {
		want = 204
	}
	return u.call(o, method, u.paths[i], body, want, time.Time{}, false)
}

func (u *user) depsMade(deps []int) bool {
	for _, d := range deps {
		if !u.made[d] {
			return false
		}
	}
	return true
}

// call sends one request and records it. want is the expected status
// (a DELETE also accepts 200); with needID the response must carry a valid
// top-level "id", which is returned. stopped reports that the end of the
// phase cut the request short; it is then not recorded.
func (u *user) call(o op, method, uri string, body []byte, want int, sched time.Time, needID bool) (id string, ok, stopped bool) {
	start := time.Now()
	if !sched.IsZero() && sched.Before(start) {
		start = sched
	}
	status, err := u.c.do(method, uri, body, needID)
	if errors.Is(err, errStopped) {
		return "", false, true
	}
	if ce, ok := errors.AsType[*connectError](err); ok {
		u.shard.connectError(ce.kind)
		u.back.wait(u.p.ctx, u.back.failed())
		return "", false, u.p.stop.stopped.Load()
	}
	u.back.connected()
	tm, class := &u.c.tm, ""
	switch {
	case err != nil:
		tm, class = nil, classify(0, err)
	case status != want && (o != opDelete || status != 200):
		class = httpClass(status)
	case needID:
		var valid bool
		if id, valid = topLevelID(u.c.body); !valid {
			class = classOther
		}
	}
	u.shard.record(o, tm, start, class, u.p.rec.highestUS)
	if class != "" && !u.sampled[o] {
		u.sampled[o] = true // each user offers its shard one sample per operation
		var body []byte
		if needID || status >= 400 { // the client kept this response's body
			body = u.c.body
		}
		u.shard.sample(o, status, class, body)
	}
	return id, class == "", false
}
