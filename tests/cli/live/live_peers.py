"""Stand-in peers for the live tests (tests/cli/live/*.sh), on Debian's python3-websockets.

  live_peers.py collect URL OUT.json [--seconds S]   subscribe to everything, until the server
                                                      closes or S seconds pass; write what came
  live_peers.py clients URL N OUT.json                N clients at once, each collecting the map
  live_peers.py churn URL N                           N clients that connect and drop at once
  live_peers.py handshake URL [--origin O] [--no-subprotocol]   print the HTTP status of the answer
  live_peers.py http PORT_FILE                        a plain HTTP server (not a WebSocket server)
  live_peers.py ws-other PORT_FILE                    a WebSocket server of no subprotocol
  live_peers.py fake-foxglove PORT_FILE N             a Foxglove server whose N clouds do not decode

Servers write the port they listen on to PORT_FILE and run until killed.
"""
import asyncio
import base64
import http.server
import json
import struct
import sys
import threading

import websockets

SUBPROTOCOL = "foxglove.websocket.v1"


async def collect_map(url, seconds, origin=None):
    """The map a client holds: the newest message of each region, the last status, counts."""
    regions, status, topics, messages = {}, None, [], 0
    grid = None
    kwargs = {"subprotocols": [SUBPROTOCOL], "max_size": None}
    if origin:
        kwargs["origin"] = origin
    try:
        async with websockets.connect(url, **kwargs) as ws:
            channels = {}
            deadline = asyncio.get_event_loop().time() + seconds
            while True:
                left = deadline - asyncio.get_event_loop().time()
                if left <= 0:
                    break
                try:
                    m = await asyncio.wait_for(ws.recv(), left)
                except asyncio.TimeoutError:
                    break
                if isinstance(m, str):
                    j = json.loads(m)
                    if j["op"] == "advertise":
                        subs = []
                        for c in j["channels"]:
                            channels[c["id"]] = c["topic"]
                            topics.append(c["topic"])
                            subs.append({"id": c["id"], "channelId": c["id"]})
                        await ws.send(json.dumps({"op": "subscribe", "subscriptions": subs}))
                    continue
                messages += 1
                sub, _ = struct.unpack_from("<IQ", m, 1)
                topic = channels.get(sub)
                payload = json.loads(m[13:])
                if topic == "/voxen/map/regions":
                    key = tuple(payload["region"])
                    if payload["occupied_count"] == 0:
                        regions.pop(key, None)
                    else:
                        indices = base64.b64decode(payload["occupied"])
                        assert len(indices) == 4 * payload["occupied_count"], "occupied does not hold occupied_count indices"
                        regions[key] = payload["occupied_count"]
                elif topic == "/voxen/status":
                    status = payload
                elif topic == "/voxen/map/grid":
                    grid = payload
    except websockets.exceptions.ConnectionClosed:
        pass
    return {
        "regions": len(regions),
        "occupied": sum(regions.values()),
        "status": status,
        "topics": topics,
        "messages": messages,
        "grid_cells": len(base64.b64decode(grid["data"])) if grid else 0,
    }


async def many_clients(url, n, seconds):
    return await asyncio.gather(*[collect_map(url, seconds) for _ in range(n)])


async def churn(url, n):
    async def once():
        async with websockets.connect(url, subprotocols=[SUBPROTOCOL]) as ws:
            await ws.recv()
    await asyncio.gather(*[once() for _ in range(n)])


async def handshake(url, origin, subprotocol):
    kwargs = {"subprotocols": [SUBPROTOCOL]} if subprotocol else {}
    if origin:
        kwargs["origin"] = origin
    try:
        async with websockets.connect(url, **kwargs):
            return 101
    except websockets.exceptions.InvalidStatusCode as e:
        return e.status_code


def write_port(path, port):
    with open(path + ".tmp", "w") as f:
        f.write(str(port))
    import os
    os.replace(path + ".tmp", path)


def serve_http(port_file):
    server = http.server.HTTPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
    write_port(port_file, server.server_address[1])
    server.serve_forever()


async def serve_ws_other(port_file):
    async def echo(ws, *_):
        async for m in ws:
            await ws.send(m)
    async with websockets.serve(echo, "127.0.0.1", 0) as server:
        write_port(port_file, server.sockets[0].getsockname()[1])
        await asyncio.Future()


async def serve_fake_foxglove(port_file, clouds):
    """Advertises /points (a ros1 sensor_msgs/PointCloud2) and sends `clouds` messages of garbage."""
    async def handler(ws, *_):
        await ws.send(json.dumps({"op": "serverInfo", "name": "fake", "capabilities": []}))
        await ws.send(json.dumps({"op": "advertise", "channels": [
            {"id": 1, "topic": "/points", "encoding": "ros1", "schemaName": "sensor_msgs/PointCloud2",
             "schema": "", "schemaEncoding": "ros1msg"}]}))
        sub = json.loads(await ws.recv())["subscriptions"][0]["id"]
        for i in range(clouds):
            await ws.send(struct.pack("<BIQ", 1, sub, i) + b"not a point cloud" * (i + 1))
            await asyncio.sleep(0.05)
        await asyncio.Future()
    async with websockets.serve(handler, "127.0.0.1", 0, subprotocols=[SUBPROTOCOL]) as server:
        write_port(port_file, server.sockets[0].getsockname()[1])
        await asyncio.Future()


def main(argv):
    what = argv[1]
    if what == "collect":
        seconds = float(argv[argv.index("--seconds") + 1]) if "--seconds" in argv else 30.0
        result = asyncio.run(collect_map(argv[2], seconds))
        json.dump(result, open(argv[3], "w"))
    elif what == "clients":
        results = asyncio.run(many_clients(argv[2], int(argv[3]), 20.0 if len(argv) < 6 else float(argv[5])))
        json.dump(results, open(argv[4], "w"))
    elif what == "churn":
        asyncio.run(churn(argv[2], int(argv[3])))
    elif what == "handshake":
        origin = argv[argv.index("--origin") + 1] if "--origin" in argv else None
        print(asyncio.run(handshake(argv[2], origin, "--no-subprotocol" not in argv)))
    elif what == "http":
        serve_http(argv[2])
    elif what == "ws-other":
        asyncio.run(serve_ws_other(argv[2]))
    elif what == "fake-foxglove":
        asyncio.run(serve_fake_foxglove(argv[2], int(argv[3])))
    else:
        sys.exit("unknown peer " + what)


if __name__ == "__main__":
    main(sys.argv)
