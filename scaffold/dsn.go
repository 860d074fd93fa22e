package scaffold

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// dsnPassword stands for the database's password in the DSN init shows:
// the password itself is never written.
const dsnPassword = "PASSWORD"

// dsn is the database's DSN as sweep reaches it: in the file when it
// needs no password, else a comment saying to put it in SWEEP_DB_DSN,
// where sweep reads it, with the password.
func dsn(st stack, db service) Setting {
	i := slices.IndexFunc(db.addrs, func(a addr) bool { return a.target == 5432 })
	if i < 0 && len(db.addrs) > 0 {
		i = 0
	}
	if i < 0 {
		return Setting{Why: fmt.Sprintf("The database: %s %s, so sweep cannot reach it to sample its sessions and check the pools "+
			"against its connection limit (db-dsn).", db.name, st.on.words().unreachable)}
	}
	user, userKnown := "postgres", true
	if e, ok := db.lookup("POSTGRES_USER"); ok {
		user, userKnown = e.value, e.known
	}
	if !userKnown {
		user = "USER"
	}
	name := user
	if e, ok := db.lookup("POSTGRES_DB"); ok && e.known {
		name = e.value
	}
	u := url.URL{Scheme: "postgres", User: url.User(user), Host: db.addrs[i].hostPort(), Path: "/" + name, RawQuery: "sslmode=disable"}
	_, pw := db.lookup("POSTGRES_PASSWORD")
	_, pwFile := db.lookup("POSTGRES_PASSWORD_FILE")
	if strings.EqualFold(db.value("POSTGRES_HOST_AUTH_METHOD"), "trust") || !pw && !pwFile {
		return Setting{Key: "db-dsn", Value: u.String(), Why: fmt.Sprintf("The database: %s, which asks for no password; "+
			"sweep samples its sessions and checks the pools against its connection limit.", db.name)}
	}
	u.User = url.UserPassword(user, dsnPassword)
	in := fmt.Sprintf("%s's POSTGRES_PASSWORD in place of %s", db.name, dsnPassword)
	if !userKnown {
		in = fmt.Sprintf("%s's POSTGRES_USER and POSTGRES_PASSWORD in place of USER and %s", db.name, dsnPassword)
	}
	at := "at " + db.addrs[i].hostPort()
	if st.on == onKubernetes {
		at += " as a pod sees it, which sweep reaches through a port-forward"
	}
	return Setting{Why: fmt.Sprintf("The database: %s, %s. Its password stays out of this file: "+
		"sweep reads the DSN from the environment, SWEEP_DB_DSN, with %s:\n  export SWEEP_DB_DSN='%s'\n"+
		"Without it sweep runs, but neither samples the database's sessions nor checks the pools against its connection limit.",
		db.name, at, in, u.String())}
}
