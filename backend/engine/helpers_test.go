package engine

import (
	"database/sql"
	"fmt"

	_ "modernc.org/sqlite"
)

func bumpUserVersion(path string, v int) error {
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		return err
	}
	defer db.Close()
	_, err = db.Exec(fmt.Sprintf("PRAGMA user_version = %d", v))
	return err
}
