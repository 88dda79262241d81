//go:build e2e

package app_test

import (
	"bytes"
	endian "encoding/binary"

	"fmt"
	"io"
	"net"
	"os"
	"strings"
)

// closeWindow asks window id to close the way a window manager does when
// the user clicks its close button: a WM_DELETE_WINDOW client message.
// Xvfb runs no window manager, so this speaks the X11 protocol itself
// (connection setup with the MIT cookie, two InternAtoms, SendEvent).
func closeWindow(display string, id uint32) error {
	num := strings.TrimPrefix(strings.SplitN(display, ".", 2)[0], ":")
	c, err := net.Dial("unix", "/tmp/.X11-unix/X"+num)
	if err != nil {
		return fmt.Errorf("connect to the X server: %w", err)
	}
	defer c.Close()
	name, cookie := xauthCookie(os.Getenv("XAUTHORITY"), num)
	setup := []byte{'l', 0, 11, 0, 0, 0}
	setup = endian.LittleEndian.AppendUint16(setup, uint16(len(name)))
	setup = endian.LittleEndian.AppendUint16(setup, uint16(len(cookie)))
	setup = append(setup, 0, 0)
	setup = append(append(setup, name...), pad(len(name))...)
	setup = append(append(setup, cookie...), pad(len(cookie))...)
	if _, err := c.Write(setup); err != nil {
		return err
	}
	head := make([]byte, 8)
	if _, err := io.ReadFull(c, head); err != nil {
		return fmt.Errorf("X setup: %w", err)
	}
	rest := make([]byte, 4*int(endian.LittleEndian.Uint16(head[6:])))
	if _, err := io.ReadFull(c, rest); err != nil {
		return fmt.Errorf("X setup: %w", err)
	}
	if head[0] != 1 {
		return fmt.Errorf("the X server refused the connection: %q", rest)
	}
	protocols, err := internAtom(c, "WM_PROTOCOLS")
	if err != nil {
		return err
	}
	deleteWindow, err := internAtom(c, "WM_DELETE_WINDOW")
	if err != nil {
		return err
	}
	ev := make([]byte, 32)
	ev[0], ev[1] = 33, 32 // ClientMessage, format 32
	endian.LittleEndian.PutUint32(ev[4:], id)
	endian.LittleEndian.PutUint32(ev[8:], protocols)
	endian.LittleEndian.PutUint32(ev[12:], deleteWindow)
	req := []byte{25, 0, 11, 0} // SendEvent, no propagation, 11 words
	req = endian.LittleEndian.AppendUint32(req, id)
	req = endian.LittleEndian.AppendUint32(req, 0) // no event mask: to the window's owner
	if _, err := c.Write(append(req, ev...)); err != nil {
		return err
	}
	_, err = internAtom(c, "WM_PROTOCOLS") // a round trip: the event was taken
	return err
}

func internAtom(c net.Conn, name string) (uint32, error) {
	req := []byte{16, 0}
	req = endian.LittleEndian.AppendUint16(req, uint16((8+len(name)+len(pad(len(name))))/4))
	req = endian.LittleEndian.AppendUint16(req, uint16(len(name)))
	req = append(req, 0, 0)
	req = append(append(req, name...), pad(len(name))...)
	if _, err := c.Write(req); err != nil {
		return 0, err
	}
	reply := make([]byte, 32)
	if _, err := io.ReadFull(c, reply); err != nil {
		return 0, err
	}
	if reply[0] != 1 {
		return 0, fmt.Errorf("InternAtom %s: X error %d", name, reply[1])
	}
	return endian.LittleEndian.Uint32(reply[8:]), nil
}

func pad(n int) []byte { return make([]byte, (4-n%4)%4) }

// xauthCookie finds the MIT-MAGIC-COOKIE-1 for display number num in an
// Xauthority file (none: connect without one).
func xauthCookie(path, num string) (name, data []byte) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil
	}
	r := bytes.NewReader(b)
	read := func() ([]byte, error) {
		var n uint16
		if err := endian.Read(r, endian.BigEndian, &n); err != nil {
			return nil, err
		}
		s := make([]byte, n)
		_, err := io.ReadFull(r, s)
		return s, err
	}
	for {
		var family uint16
		if err := endian.Read(r, endian.BigEndian, &family); err != nil {
			return nil, nil
		}
		fields := make([][]byte, 4) // address, number, name, data
		for i := range fields {
			f, err := read()
			if err != nil {
				return nil, nil
			}
			fields[i] = f
		}
		if string(fields[2]) == "MIT-MAGIC-COOKIE-1" && (string(fields[1]) == num || len(fields[1]) == 0) {
			return fields[2], fields[3]
		}
	}
}
