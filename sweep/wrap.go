package sweep

import "strings"

// Wrap breaks text at spaces into lines of at most width columns, the
// lines after the first indented by indent; a word longer than width
// keeps a line of its own.
func Wrap(text string, width int, indent string) string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(text) {
		switch {
		case line == "":
			line = word
		case len([]rune(line))+1+len([]rune(word)) > width:
			lines = append(lines, line)
			line = indent + word
		default:
			line += " " + word
		}
	}
	return strings.Join(append(lines, line), "\n")
}
