package builtin

import (
	"fmt"
	"strconv"
	"strings"
)

// resource is one of the nine FHIR-like resource types an iteration
// creates, with the bodies it sends for create and update.
type resource struct {
	Type string
	// deps are the indices (in resources) of the earlier resources this one
	// references; when one of them could not be created, this one is
	// skipped.
	deps   []int
	create template
	update template
}

// Indices into resources, in creation order.
const (
	iPatient = iota
	iLocation
	iOrganization
	iPractitioner
	iEncounter
	iObservation
	iMedicationRequest
	iClaim
	iExplanationOfBenefit
	numResources
)

// Bodies are templates: {{Type}} becomes "Type/<id>" of the resource
// created earlier in the same iteration, {{id}} the resource's own id (in
// updates) and {{n}} a number unique to the iteration.
var resources = [numResources]resource{
	iPatient: res(iPatient, nil,
		`{"resourceType":"Patient","active":true,"name":[{"use":"official","family":"Load{{n}}","given":["Pat"]}],"gender":"female","birthDate":"1984-03-12","telecom":[{"system":"phone","value":"+1-555-0100"}]}`,
		`{"resourceType":"Patient","id":"{{id}}","active":true,"name":[{"use":"official","family":"Load{{n}}","given":["Pat","Q"]}],"gender":"female","birthDate":"1984-03-12","telecom":[{"system":"phone","value":"+1-555-0199"}]}`),
	iLocation: res(iLocation, nil,
		`{"resourceType":"Location","status":"active","name":"Ward {{n}}","mode":"instance","address":{"city":"Springfield","country":"US"}}`,
		`{"resourceType":"Location","id":"{{id}}","status":"suspended","name":"Ward {{n}}","mode":"instance","address":{"city":"Springfield","country":"US"}}`),
	iOrganization: res(iOrganization, nil,
		`{"resourceType":"Organization","active":true,"name":"Clinic {{n}}","type":[{"coding":[{"system":"http://terminology.hl7.org/CodeSystem/organization-type","code":"prov"}]}]}`,
		`{"resourceType":"Organization","id":"{{id}}","active":false,"name":"Clinic {{n}}","type":[{"coding":[{"system":"http://terminology.hl7.org/CodeSystem/organization-type","code":"prov"}]}]}`),
	iPractitioner: res(iPractitioner, nil,
		`{"resourceType":"Practitioner","active":true,"name":[{"family":"Doc{{n}}","given":["Alex"],"prefix":["Dr"]}],"gender":"male"}`,
		`{"resourceType":"Practitioner","id":"{{id}}","active":true,"name":[{"family":"Doc{{n}}","given":["Alex","B"],"prefix":["Dr"]}],"gender":"male"}`),
	iEncounter: res(iEncounter, []int{iPatient, iLocation, iOrganization, iPractitioner},
		`{"resourceType":"Encounter","status":"in-progress","class":{"system":"http://terminology.hl7.org/CodeSystem/v3-ActCode","code":"AMB"},"subject":{"reference":"{{Patient}}"},"participant":[{"individual":{"reference":"{{Practitioner}}"}}],"location":[{"location":{"reference":"{{Location}}"}}],"serviceProvider":{"reference":"{{Organization}}"}}`,
		`{"resourceType":"Encounter","id":"{{id}}","status":"finished","class":{"system":"http://terminology.hl7.org/CodeSystem/v3-ActCode","code":"AMB"},"subject":{"reference":"{{Patient}}"},"participant":[{"individual":{"reference":"{{Practitioner}}"}}],"location":[{"location":{"reference":"{{Location}}"}}],"serviceProvider":{"reference":"{{Organization}}"}}`),
	iObservation: res(iObservation, []int{iPatient, iEncounter, iPractitioner},
		`{"resourceType":"Observation","status":"preliminary","code":{"coding":[{"system":"http://loinc.org","code":"8867-4","display":"Heart rate"}]},"subject":{"reference":"{{Patient}}"},"encounter":{"reference":"{{Encounter}}"},"performer":[{"reference":"{{Practitioner}}"}],"valueQuantity":{"value":72,"unit":"beats/minute"}}`,
		`{"resourceType":"Observation","id":"{{id}}","status":"final","code":{"coding":[{"system":"http://loinc.org","code":"8867-4","display":"Heart rate"}]},"subject":{"reference":"{{Patient}}"},"encounter":{"reference":"{{Encounter}}"},"performer":[{"reference":"{{Practitioner}}"}],"valueQuantity":{"value":74,"unit":"beats/minute"}}`),
	iMedicationRequest: res(iMedicationRequest, []int{iPatient, iEncounter, iPractitioner},
		`{"resourceType":"MedicationRequest","status":"active","intent":"order","medicationCodeableConcept":{"text":"Amoxicillin 500 mg"},"subject":{"reference":"{{Patient}}"},"encounter":{"reference":"{{Encounter}}"},"requester":{"reference":"{{Practitioner}}"}}`,
		`{"resourceType":"MedicationRequest","id":"{{id}}","status":"completed","intent":"order","medicationCodeableConcept":{"text":"Amoxicillin 500 mg"},"subject":{"reference":"{{Patient}}"},"encounter":{"reference":"{{Encounter}}"},"requester":{"reference":"{{Practitioner}}"}}`),
	iClaim: res(iClaim, []int{iPatient, iOrganization, iLocation, iMedicationRequest},
		`{"resourceType":"Claim","status":"active","use":"claim","type":{"coding":[{"code":"pharmacy"}]},"patient":{"reference":"{{Patient}}"},"provider":{"reference":"{{Organization}}"},"facility":{"reference":"{{Location}}"},"prescription":{"reference":"{{MedicationRequest}}"},"priority":{"coding":[{"code":"normal"}]},"total":{"value":{{n}},"currency":"USD"}}`,
		`{"resourceType":"Claim","id":"{{id}}","status":"cancelled","use":"claim","type":{"coding":[{"code":"pharmacy"}]},"patient":{"reference":"{{Patient}}"},"provider":{"reference":"{{Organization}}"},"facility":{"reference":"{{Location}}"},"prescription":{"reference":"{{MedicationRequest}}"},"priority":{"coding":[{"code":"normal"}]},"total":{"value":{{n}},"currency":"USD"}}`),
	iExplanationOfBenefit: res(iExplanationOfBenefit, []int{iPatient, iOrganization, iClaim},
		`{"resourceType":"ExplanationOfBenefit","status":"active","use":"claim","outcome":"complete","patient":{"reference":"{{Patient}}"},"insurer":{"reference":"{{Organization}}"},"provider":{"reference":"{{Organization}}"},"claim":{"reference":"{{Claim}}"}}`,
		`{"resourceType":"ExplanationOfBenefit","id":"{{id}}","status":"cancelled","use":"claim","outcome":"complete","patient":{"reference":"{{Patient}}"},"insurer":{"reference":"{{Organization}}"},"provider":{"reference":"{{Organization}}"},"claim":{"reference":"{{Claim}}"}}`),
}

func res(i int, deps []int, create, update string) resource {
	return resource{Type: typeNames[i], deps: deps, create: compile(create, deps), update: compile(update, deps)}
}

// template is a body split into literal text and slots.
type template []segment

type segment struct {
	text string
	slot int // slotNone, slotID, slotN or the index of a referenced resource
}

const (
	slotNone = -1 - iota
	slotID
	slotN
)

// compile splits a body at its {{...}} slots. A slot naming a resource
// that is not among deps is a programming error and panics at start-up.
func compile(body string, deps []int) template {
	var t template
	for {
		i := strings.Index(body, "{{")
		if i < 0 {
			return append(t, segment{text: body, slot: slotNone})
		}
		j := strings.Index(body[i:], "}}")
		t = append(t, segment{text: body[:i], slot: slotNone})
		t = append(t, segment{slot: slotFor(body[i+2:i+j], deps)})
		body = body[i+j+2:]
	}
}

func slotFor(name string, deps []int) int {
	switch name {
	case "id":
		return slotID
	case "n":
		return slotN
	}
	for _, d := range deps {
		if typeNames[d] == name {
			return d
		}
	}
	panic(fmt.Sprintf("template slot {{%s}} is not a dependency", name))
}

// typeNames lists the resource types in creation order.
var typeNames = [numResources]string{
	"Patient", "Location", "Organization", "Practitioner", "Encounter",
	"Observation", "MedicationRequest", "Claim", "ExplanationOfBenefit",
}

// render appends the body to dst: ids holds the ids created so far in the
// iteration, own the resource's own id, n the iteration's number.
func (t template) render(dst []byte, ids *[numResources]string, own string, n int64) []byte {
	for _, s := range t {
		switch {
		case s.slot == slotNone:
			dst = append(dst, s.text...)
		case s.slot == slotID:
			dst = append(dst, own...)
		case s.slot == slotN:
			dst = strconv.AppendInt(dst, n, 10)
		default:
			dst = append(dst, typeNames[s.slot]...)
			dst = append(dst, '/')
			dst = append(dst, ids[s.slot]...)
		}
	}
	return dst
}
