@echo off
rem `ax` from the installed desktop app (Windows): runs the app's CLI (resources\app\bin\ax.mjs)
rem with the app's own binary as Node. Add this folder (<install dir>\resources\cli) to PATH.
setlocal
set "ELECTRON_RUN_AS_NODE=1"
"%~dp0..\..\AX Scheduler.exe" "%~dp0..\app\bin\ax.mjs" %*
exit /b %ERRORLEVEL%
