package main

import (
	"context"
	"errors"
	"time"
)

// resourceTypes are the nine FHIR-like types the app serves; each has a
// table named after it in lower case.
var resourceTypes = []string{
	"Patient", "Location", "Organization", "Practitioner", "Encounter",
	"Observation", "MedicationRequest", "Claim", "ExplanationOfBenefit",
}

// Sentinel errors that the handlers turn into status codes.
var (
	// errNotFound: no resource with that id (404).
	errNotFound = errors.New("not found")
	// errBusy: no pool connection within the acquire timeout (503).
	errBusy = errors.New("no database connection available")
)

// store is what the HTTP handlers and the background task need from the
// database. The PostgreSQL store implements it; handler tests use a fake.
// typ is always one of resourceTypes; doc is a JSON object.
type store interface {
	Create(ctx context.Context, typ, id string, doc []byte) error
	Get(ctx context.Context, typ, id string) ([]byte, error)
	Update(ctx context.Context, typ, id string, doc []byte) error
	Delete(ctx context.Context, typ, id string) error
	// Ping checks that a connection can be had and answers.
	Ping(ctx context.Context) error
	// Hold keeps n connections busy for d, like a background job would.
	Hold(ctx context.Context, n int, d time.Duration) error
}
