package api

import (
	"reflect"
	"testing"

	"hyatlas/backend/memory"
)

// Every score part of a hit goes out rounded, the ones added later too.
func TestRoundWhyRoundsEveryPart(t *testing.T) {
	var w memory.Why
	v := reflect.ValueOf(&w).Elem()
	for i := range v.NumField() {
		if f := v.Field(i); f.Kind() == reflect.Float64 {
			f.SetFloat(0.123456789)
		}
	}
	got := reflect.ValueOf(roundWhy(w))
	for i := range got.NumField() {
		if f := got.Field(i); f.Kind() == reflect.Float64 && f.Float() != round(0.123456789) {
			t.Errorf("%s went out as %v", got.Type().Field(i).Name, f.Float())
		}
	}
}
