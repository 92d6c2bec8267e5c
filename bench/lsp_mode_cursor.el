;;; lsp_mode_cursor.el --- move the cursor in lsp-mode, opening no menu -*- lexical-binding: t -*-

;; Run by bench/unasked_requests.py as `emacs --batch -q -l lsp_mode_cursor.el'.
;; docs/editors/lsp-mode.md's set-up (sparkls and ruff as add-ons) on a file ruff finds
;; problems in; then the cursor moves line by line, and at each stop lsp-mode does what
;; it does after `lsp-idle-delay' without a key: its modeline asks every server for the
;; line's code actions (no `triggerKind'). No menu is ever opened. Parameters:
;;   SPARKLS_BENCH_DOCS    Elisp file: the page's blocks
;;   SPARKLS_BENCH_FILE    the Python file to open
;;   SPARKLS_BENCH_MOVES   how many cursor moves
;;   SPARKLS_BENCH_PACE_MS how long the cursor stays at each stop (real time: answers
;;                         and whatever the servers start meanwhile run as they would)
;;   SPARKLS_BENCH_RESULT  where to write the JSON result

(require 'cl-lib)
(require 'json)

(defvar bench-asked 0 "textDocument/codeAction requests lsp-mode sent.")
(defvar bench-answered 0 "Their answers.")

(defun bench-observe (request method params callback &rest keys)
  (if (not (equal method "textDocument/codeAction"))
      (apply request method params callback keys)
    (cl-incf bench-asked)
    (apply request method params (lambda (result) (cl-incf bench-answered) (funcall callback result)) keys)))

(defun bench-wait (what predicate)
  (let ((deadline (+ (float-time) 60)))
    (while (not (funcall predicate))
      (when (> (float-time) deadline) (error "Timed out waiting for %s" what))
      (accept-process-output nil 0.01))))

(defun bench-idle ()
  "Be idle after a command, as the command loop is: post-command hooks, then idle timers."
  (run-hooks 'post-command-hook)
  (dolist (timer (copy-sequence timer-idle-list))
    (timer-event-handler timer)))

(let ((result (make-hash-table :test 'equal))
      (moves (string-to-number (getenv "SPARKLS_BENCH_MOVES")))
      (pace (string-to-number (getenv "SPARKLS_BENCH_PACE_MS"))))
  (condition-case err
      (progn
        (package-initialize)
        (load (getenv "SPARKLS_BENCH_DOCS") nil t)
        (require 'lsp-mode)
        (advice-add 'lsp-request-async :around #'bench-observe)
        (setq lsp-session-file (expand-file-name "lsp-session" (getenv "HOME")))
        (add-hook 'python-mode-hook (lambda () (remove-hook 'flymake-diagnostic-functions #'python-flymake t)))
        (find-file (getenv "SPARKLS_BENCH_FILE"))
        (lsp-workspace-folders-add default-directory)
        (lsp)
        (bench-wait "both servers" (lambda () (and (= (length (lsp-workspaces)) 2)
                                                   (cl-every (lambda (w) (eq (lsp--workspace-status w) 'initialized))
                                                             (lsp-workspaces)))))
        (bench-wait "ruff's diagnostics" (lambda () (lsp--get-buffer-diagnostics)))
        (let ((lines (count-lines (point-min) (point-max))) (started (float-time)))
          (dotimes (i moves)
            (goto-char (point-min))
            (forward-line (mod i lines))
            (let ((asked bench-asked) (until (+ (float-time) (/ pace 1000.0))))
              (bench-idle)
              (bench-wait "the code-action request" (lambda () (> bench-asked asked)))
              (while (< (float-time) until) (accept-process-output nil 0.01))))
          ;; what the servers started at the last stops reaches the endpoint before the end
          (let ((until (+ (float-time) 2))) (while (< (float-time) until) (accept-process-output nil 0.01)))
          (puthash "moves" moves result)
          (puthash "code_action_requests" bench-asked result)
          (puthash "answered" bench-answered result)
          (puthash "seconds" (- (float-time) started) result)
          (puthash "diagnostic_lines" (length (delete-dups (mapcar (lambda (d) (gethash "line" (gethash "start" (gethash "range" d))))
                                                                   (lsp--get-buffer-diagnostics))))
                   result)))
    (error (puthash "error" (error-message-string err) result)))
  (with-temp-file (getenv "SPARKLS_BENCH_RESULT") (insert (json-encode result)))
  (setq lsp-restart 'ignore)
  (kill-emacs 0))

;;; lsp_mode_cursor.el ends here
