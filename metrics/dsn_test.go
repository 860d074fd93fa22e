package metrics

import (
	"strings"
	"testing"
)

func TestRedactDSN(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, in, want string
	}{
		{"url with password", "postgres://app:s3cret@db:5432/fhir?sslmode=disable", "postgres://app:xxxxx@db:5432/fhir?sslmode=disable"},
		{"postgresql scheme", "postgresql://app:s3cret@db/fhir", "postgresql://app:xxxxx@db/fhir"},
		{"url without password", "postgres://app@db/fhir", "postgres://app@db/fhir"},
		{"password in query", "postgres://db/fhir?password=s3cret&user=app", "postgres://db/fhir?password=xxxxx&user=app"},
		{"escaped password", "postgres://app:p%40ss%2Fw@db/fhir", "postgres://app:xxxxx@db/fhir"},
		{"unparsable url", "postgres://app:pa ss#/x@db:5432/fhir", "postgres://app:xxxxx@db:5432/fhir"},
		{"unparsable url without password", "postgres://app@db/fh%zz", "postgres://app@db/fh%zz"},
		{"keywords", "host=db user=app password=s3cret dbname=fhir", "host=db user=app password=xxxxx dbname=fhir"},
		{"quoted keyword", `host=db password='s3 c\'ret' dbname=fhir`, "host=db password=xxxxx dbname=fhir"},
		{"spaces around =", "host=db password = s3cret dbname=fhir", "host=db password = xxxxx dbname=fhir"},
		{"password last", "dbname=fhir password=s3cret", "dbname=fhir password=xxxxx"},
		{"no password", "host=/run/postgresql dbname=fhir", "host=/run/postgresql dbname=fhir"},
		{"empty", "", ""},
		{"empty password last", "host=db password=", "host=db password=xxxxx"},
		{"empty value last", "password=s3cret dbname=", "password=xxxxx dbname="},
		{"unterminated quote", "host=db password='s3cret", "host=db password=xxxxx"},
		{"stray = after a quoted value", "user='x'=y password=s3cret", "user='x'=y password=xxxxx"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got := RedactDSN(c.in)
			if got != c.want {
				t.Errorf("RedactDSN(%q) = %q, want %q", c.in, got, c.want)
			}
			for _, secret := range []string{"s3cret", "s3 c", "p%40ss", "pa ss"} {
				if strings.Contains(got, secret) {
					t.Errorf("RedactDSN(%q) = %q still holds %q", c.in, got, secret)
				}
			}
		})
	}
}
