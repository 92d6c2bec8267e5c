;;; eglot_flow.el --- drive eglot through the documented sparkls set-up -*- lexical-binding: t -*-

;; Run as `emacs --batch -q -l eglot_flow.el' (not -Q: Debian's site start-up puts
;; the elpa-eglot package on the load path, as it does for a user). Parameters come
;; from environment variables:
;;   SPARKLS_EMACS_DOCS     Elisp file: the blocks of docs/editors/emacs.md under test
;;   SPARKLS_EMACS_FILE     the Python file to open
;;   SPARKLS_EMACS_FLOW     JSON, each step optional, in this order: {"quickfix": {"diagnostic"},
;;                          "edits": [STEP...], "refine": INSTRUCTION, "slow": SLOW,
;;                          "context": LINE, "task": STEP, "follow_ups": RENAME}, where
;;                          STEP is {"line", "select" | "to_line", "instruction"}, SLOW a
;;                          STEP with "type_line", "type" (typed meanwhile), "idle" (then
;;                          idle), and RENAME {"line", "name", "type", "pick", "other",
;;                          "closed"}: NAME on LINE typed over with TYPE, the action whose
;;                          title starts with PICK picked; OTHER visited first, CLOSED not;
;;                          also "neighbours": tests/editors/neighbours.py's STEPS (the
;;                          opened file is its file), and "complete": {"type"} (TYPE typed
;;                          at the end of the file, then completion at point)
;;   SPARKLS_EMACS_RESULT   where to write the JSON result
;;   SPARKLS_EMACS_TIMEOUT  seconds, the bound on each wait (default 20)
;; The harness only observes (advice) and types: the set-up, the commands, eglot's
;; code actions and its workspace/applyEdit handler are the docs' and eglot's own.
;; Emacs exits non-zero on failure.

(require 'cl-lib)
(require 'json)
(require 'subr-x)

(defvar flow-result (make-hash-table :test 'equal))
;; Requests to the server, newest first: (METHOD PARAMS ANSWER), ANSWER (:result R) or
;; (:error E), nil while pending; synchronous ones (`jsonrpc-request') and asynchronous
;; ones (`jsonrpc-async-request') alike.
(defvar flow-requests nil)
(defvar flow-messages nil "What reached the echo area, newest first.")
(defvar flow-logs nil "The server's window/logMessage texts, newest first.")
(defvar flow-prompts nil "The y-or-n-p questions asked, newest first: (PROMPT ANSWER).")
(defvar flow-published nil "publishDiagnostics received, newest first: (URI VERSION).")
(defvar flow-env
  (list :docs (getenv "SPARKLS_EMACS_DOCS")
        :file (getenv "SPARKLS_EMACS_FILE")
        :flow (let ((json-object-type 'plist) (json-array-type 'list))
                (json-read-from-string (or (getenv "SPARKLS_EMACS_FLOW") "{}")))
        :result (getenv "SPARKLS_EMACS_RESULT")
        :timeout (string-to-number (or (getenv "SPARKLS_EMACS_TIMEOUT") "20"))))

(defun flow-set (key value) (puthash key value flow-result))

(defun flow-wait (what predicate)
  "Process events until PREDICATE holds; fail after the timeout."
  (let ((deadline (+ (float-time) (plist-get flow-env :timeout))))
    (while (not (funcall predicate))
      (when (> (float-time) deadline)
        (error "Timed out waiting for %s" what))
      (accept-process-output nil 0.01))))

(defun flow-observe-requests (request connection method params &rest args)
  "Around `jsonrpc-request': remember every request and its result."
  (let ((entry (list method params nil)))
    (push entry flow-requests)
    (condition-case err
        (let ((result (apply request connection method params args)))
          (setf (nth 2 entry) (list :result result))
          result)
      (error (setf (nth 2 entry) (list :error (error-message-string err)))
             (signal (car err) (cdr err))))))

(defun flow-observe-async (request connection method params &rest keys)
  "Around `jsonrpc-async-request': remember the request, and its answer when it comes."
  (let ((entry (list method params nil))
        (success (plist-get keys :success-fn))
        (failure (plist-get keys :error-fn)))
    (push entry flow-requests)
    (apply request connection method params
           (append (list :success-fn (lambda (result)
                                       (setf (nth 2 entry) (list :result result))
                                       (when success (funcall success result)))
                         :error-fn (lambda (error)
                                     (setf (nth 2 entry) (list :error error))
                                     (when failure (funcall failure error))))
                   keys))))

(defun flow-observe-messages (message format &rest args)
  "Around `message': remember what reached the echo area."
  (let ((text (apply message format args)))
    (when text (push text flow-messages))
    text))

(defun flow-observe-notifications (_server method &rest params)
  "Before eglot handles a notification: remember the server's log lines and which
document's diagnostics came, for which version."
  (when (eq method 'window/logMessage)
    (push (plist-get params :message) flow-logs))
  (when (eq method 'textDocument/publishDiagnostics)
    (push (list (plist-get params :uri) (plist-get params :version)) flow-published)))

(defun flow-observe-questions (ask prompt)
  "Around `y-or-n-p': remember the question and the answer typed."
  (let ((answer (funcall ask prompt)))
    (push (list prompt answer) flow-prompts)
    answer))

(defun flow-idle ()
  "Be idle for a moment, as a user who stops typing: run the idle timers, as the
command loop does (batch Emacs never goes idle by itself)."
  (dolist (timer (copy-sequence timer-idle-list))
    (timer-event-handler timer)))

(defun flow-observe-actions (actions &rest _)
  "Before eglot executes a code action: the titles it had to choose from, in \"menus\"
\(each menu), and in \"offered\" (the first)."
  (let ((titles (vconcat (mapcar (lambda (a) (plist-get a :title)) actions))))
    (unless (gethash "offered" flow-result) (flow-set "offered" titles))
    (flow-set "menus" (vconcat (gethash "menus" flow-result) (list titles)))))

(defun flow-observe-server-requests (_server method &rest params)
  "Before eglot handles a server's request: each workspace/applyEdit's documents and
versions, in \"applied_edits\"."
  (when (eq method 'workspace/applyEdit)
    (let ((edit (plist-get params :edit)))
      (flow-set "applied_edits"
                (vconcat (gethash "applied_edits" flow-result)
                         (list (list :changes (and (plist-get edit :changes) t)
                                     :documents
                                     (vconcat (mapcar (lambda (change)
                                                        (let ((doc (plist-get change :textDocument)))
                                                          (list :uri (plist-get doc :uri)
                                                                :version (plist-get doc :version))))
                                                      (plist-get edit :documentChanges))))))))))

(defun flow-type (&rest keys)
  "Type KEYS (key descriptions and literal strings) through the command loop."
  (execute-kbd-macro (apply #'vconcat keys)))

(defun flow-goto-line (line)
  (goto-char (point-min))
  (forward-line (1- line)))

(defun flow-quick-fix (server)
  "Publish a linter's diagnostic through the connection, as a multiplexer would, and fix it."
  (let* ((d (plist-get (plist-get flow-env :flow) :quickfix))
         (diagnostic (plist-get d :diagnostic))
         (line (plist-get diagnostic :line))
         (before (buffer-string)))
    (eglot-handle-notification
     server 'textDocument/publishDiagnostics
     :uri (plist-get (eglot--TextDocumentIdentifier) :uri)
     :diagnostics
     (vector (list :range (list :start (list :line line :character (plist-get diagnostic :col))
                                :end (list :line line :character (plist-get diagnostic :end_col)))
                   :severity 1 :source (plist-get diagnostic :source)
                   :message (plist-get diagnostic :message))))
    (flow-wait "flymake to hold the diagnostic"
               (lambda () (flymake-diagnostics (point-min) (point-max))))
    (flow-goto-line (1+ line))
    (eglot-code-actions (line-beginning-position) (line-end-position) "quickfix" t)
    (flow-wait "the quick fix to change the buffer" (lambda () (not (equal before (buffer-string)))))))

(defun flow-select (step)
  "Select what STEP says: a text on a line, or whole lines."
  (flow-goto-line (plist-get step :line))
  (if-let ((text (plist-get step :select)))
      (progn (search-forward text (line-end-position))
             (push-mark (match-beginning 0) t t))
    (push-mark (point) t t)
    (flow-goto-line (1+ (plist-get step :to_line)))))

(defun flow-command (keys instruction)
  "Type KEYS, then INSTRUCTION (if any) and RET; the request it sent, answered or not."
  (let ((before (length flow-requests)))
    (flow-type (kbd keys) (if instruction (concat instruction "\r") ""))
    (unless (> (length flow-requests) before)
      (error "%s sent no request" keys))
    (car flow-requests)))

(defun flow-answer (what entry)
  "Wait for ENTRY's answer; fail on an error answer."
  (flow-wait what (lambda () (nth 2 entry)))
  (when (eq (car (nth 2 entry)) :error)
    (error "%s: error %S" what (nth 2 entry)))
  (plist-get (nth 2 entry) :result))

(defun flow-edit (step)
  "Select what STEP says, then C-c s e and the instruction, as the user would."
  (flow-select step)
  (flow-answer "C-c s e" (flow-command "C-c s e" (plist-get step :instruction))))

(defun flow-refine (instruction)
  "C-c s r and INSTRUCTION: revise the last edit."
  (flow-answer "C-c s r" (flow-command "C-c s r" instruction)))

(defun flow-context (line)
  "C-c s c on LINE: the answer, and the buffer that shows it."
  (flow-goto-line line)
  (deactivate-mark)
  (let* ((result (flow-answer "C-c s c" (flow-command "C-c s c" nil)))
         (path (plist-get result :path))
         (shown (if (stringp path) (find-buffer-visiting path) (get-buffer "*Spark context*"))))
    (flow-set "context"
              (list :path path
                    :buffer (and shown (buffer-name shown))
                    :displayed (and shown (get-buffer-window shown t) t)
                    :read_only (and shown (buffer-local-value 'buffer-read-only shown))
                    :text (and shown (with-current-buffer shown
                                       (buffer-substring-no-properties (point-min) (point-max))))))))

(defun flow-slow-edit (step)
  "C-c s e against a slow model, then type elsewhere while it works (STEP's :type at
the start of line :type_line), idle or not (:idle): what happened, for the test."
  (flow-select step)
  (let ((entry (flow-command "C-c s e" (plist-get step :instruction)))
        (ticks 0) timer)
    (setq timer (run-with-timer 0.05 0.05 (lambda () (cl-incf ticks))))
    (let ((returned-pending (null (nth 2 entry))))
      (deactivate-mark)
      (flow-goto-line (plist-get step :type_line))
      (flow-type (plist-get step :type))
      (flow-set "slow" (list :returned_pending returned-pending
                             :typed_pending (null (nth 2 entry)))))
    (when (eq (plist-get step :idle) t)
      (flow-idle))
    (flow-wait "the slow edit to be answered" (lambda () (nth 2 entry)))
    (cancel-timer timer)
    (flow-set "slow" (append (gethash "slow" flow-result)
                             (list :answer (nth 2 entry) :ticks ticks
                                   :text (buffer-substring-no-properties (point-min) (point-max)))))))

(defun flow-task (step)
  "C-c s t on STEP's selection; only what it sends is checked (the server side comes later)."
  (flow-select step)
  (let ((entry (flow-command "C-c s t" (plist-get step :instruction))))
    (flow-wait "sparkls.task to answer" (lambda () (nth 2 entry)))
    (flow-set "task" (append (list :command (plist-get (nth 1 entry) :command)
                                   :arguments (plist-get (nth 1 entry) :arguments))
                             (nth 2 entry)))))

(defun flow-action-titles ()
  "The titles of the code actions at point, or on the region (eglot's own request, not interactive)."
  (mapcar (lambda (a) (plist-get a :title))
          (if (use-region-p) (eglot-code-actions (region-beginning) (region-end)) (eglot-code-actions (point)))))

(defun flow-buffer (path)
  "What Emacs holds for PATH: whether a buffer visits it, modified or not, its text."
  (let ((buffer (find-buffer-visiting path)))
    (list :visited (and buffer t)
          :modified (and buffer (buffer-modified-p buffer) t)
          :managed (and buffer (buffer-local-value 'eglot--managed-mode buffer) t)
          :text (and buffer (with-current-buffer buffer
                              (buffer-substring-no-properties (point-min) (point-max))))
          :disk (with-temp-buffer (insert-file-contents path) (buffer-string)))))

(defun flow-follow-ups (step)
  "Visit STEP's :other; once the server has indexed the workspace, rename the function
by typing over its name at its def; wait until the code actions list \"Spark: update\",
pick it with `eglot-code-actions' and answer eglot's question with y."
  (let ((other (plist-get step :other))
        (closed (plist-get step :closed))
        (pick (plist-get step :pick)))
    (find-file-noselect other)
    (flow-wait "the workspace index"
               (lambda () (cl-some (lambda (m) (string-prefix-p "workspace index:" m)) flow-logs)))
    (flow-goto-line (plist-get step :line))
    (search-forward (plist-get step :name) (line-end-position))
    (flow-type (kbd "M-DEL") (plist-get step :type))
    (flow-idle) ; eglot sends the typing after idle time
    (let ((deadline (+ (float-time) (plist-get flow-env :timeout))))
      (while (not (cl-some (lambda (title) (string-prefix-p pick title)) (flow-action-titles)))
        (when (> (float-time) deadline)
          (error "Timed out waiting for %s among the code actions" pick))
        (accept-process-output nil 0.05)))
    (let ((before (length flow-requests))
          (questions (length flow-prompts)))
      ;; The menu's completion: the start of the title, TAB, RET; then y RET to eglot's
      ;; question (in batch mode `y-or-n-p' reads a line).
      (flow-type (kbd "M-x") "eglot-code-actions\r" pick "\t\r" "y\r")
      (let ((command (cl-find :workspace/executeCommand (butlast flow-requests before) :key #'car)))
        (unless command (error "%s ran no command" pick))
        (flow-wait "the follow-ups command to be answered" (lambda () (nth 2 command)))
        (flow-set "follow_ups"
                  (list :arguments (plist-get (nth 1 command) :arguments)
                        :answer (nth 2 command)
                        :questions (vconcat (mapcar (lambda (q) (list :prompt (car q) :answer (cadr q)))
                                                    (reverse (butlast flow-prompts questions))))
                        :this (flow-buffer (buffer-file-name))
                        :other (flow-buffer other)
                        :closed (flow-buffer closed)))))))

(defun flow-commands ()
  "The workspace/executeCommand requests, oldest first, for the result."
  (vconcat
   (cl-loop for (method params answer) in (reverse flow-requests)
            when (eq method :workspace/executeCommand)
            collect (list :command (plist-get params :command)
                          :arguments (plist-get params :arguments)
                          :result (plist-get answer :result)))))

(defun flow-stderr-lines (server)
  "The lines of the server's stderr, as eglot keeps them."
  (with-current-buffer (jsonrpc-stderr-buffer server)
    (cl-count-if (lambda (line) (not (string-empty-p line)))
                 (split-string (buffer-string) "\n"))))

(defun flow-main ()
  (let ((started nil) (flow (plist-get flow-env :flow)) server)
    (advice-add 'jsonrpc-request :around #'flow-observe-requests)
    (advice-add 'jsonrpc-async-request :around #'flow-observe-async)
    (advice-add 'eglot--read-execute-code-action :before #'flow-observe-actions)
    (advice-add 'message :around #'flow-observe-messages)
    (advice-add 'y-or-n-p :around #'flow-observe-questions)
    (load (plist-get flow-env :docs) nil t)
    (require 'eglot)
    (advice-add 'eglot-handle-notification :before #'flow-observe-notifications)
    (advice-add 'eglot-handle-request :before #'flow-observe-server-requests)
    (flow-set "eglot" (locate-library "eglot"))
    (flow-set "emacs" emacs-version)
    (transient-mark-mode 1)
    (setq eglot-sync-connect t)
    (find-file (plist-get flow-env :file))
    (setq started (float-time))
    (apply #'eglot (eglot--guess-contact))
    (setq server (eglot-current-server))
    (unless server (error "eglot did not connect"))
    (flow-set "initialize_ms" (* 1000 (- (float-time) started)))
    (flow-wait "a warm fast tier" (lambda () (equal sparkls-status "Spark (local): ready")))
    (flow-set "warm_ms" (* 1000 (- (float-time) started)))
    (flow-set "steps" nil)
    (flymake-start)
    (when (plist-get flow :quickfix)
      (flow-quick-fix server)
      (flow-step "quick fix"))
    (dolist (step (plist-get flow :edits))
      (flow-edit step)
      (flow-step "edit"))
    (when-let ((instruction (plist-get flow :refine)))
      (flow-refine instruction)
      (flow-step "refine"))
    (when-let ((step (plist-get flow :slow)))
      (flow-slow-edit step)
      (flow-step "edit while typing"))
    (save-buffer)
    (flow-set "status" sparkls-status)
    (when-let ((line (plist-get flow :context)))
      (flow-context line)
      (flow-step "context view"))
    (when-let ((step (plist-get flow :task)))
      (flow-task step)
      (flow-step "task"))
    (when-let ((step (plist-get flow :follow_ups)))
      (flow-follow-ups step)
      (flow-step "follow-ups"))
    (when-let ((step (plist-get flow :neighbours)))
      (flow-neighbours step)
      (flow-step "neighbours"))
    (when-let ((step (plist-get flow :complete)))
      (flow-complete step)
      (flow-step "complete"))
    (flow-set "commands" (flow-commands))
    (flow-set "methods" (vconcat (mapcar (lambda (r) (symbol-name (car r))) (reverse flow-requests))))
    (flow-set "messages" (vconcat (reverse flow-messages)))
    (flow-set "stderr_lines" (flow-stderr-lines server))
    (flow-set "warnings" (and (get-buffer "*Warnings*")
                              (with-current-buffer "*Warnings*" (buffer-string))))
    (flow-set "stderr" (with-current-buffer (jsonrpc-stderr-buffer server) (buffer-string)))
    (eglot-shutdown server)
    (flow-set "closing_messages" (vconcat (reverse flow-messages)))))

(defun flow-ruff-diagnostics (what)
  "Send the typing (eglot waits for idle time), then wait until diagnostics for the
buffer's current version came; return flymake's, ruff's, as [LINE MESSAGE], sorted."
  (flow-idle)
  (let ((uri (plist-get (eglot--TextDocumentIdentifier) :uri))
        (version eglot--versioned-identifier))
    (flow-wait (format "ruff's diagnostics %s" what)
               (lambda () (cl-some (lambda (p) (and (equal (car p) uri) (equal (cadr p) version))) flow-published)))
    (vconcat
     (sort (mapcar (lambda (d) (vector (1- (line-number-at-pos (flymake-diagnostic-beg d)))
                                       ;; eglot writes "Ruff [F401]: `os` imported…": the message alone
                                       (replace-regexp-in-string
                                        "\\`[^:\n]*\\[[^]\n]*\\]: " ""
                                        (car (split-string (flymake-diagnostic-text d) "\n")))))
                   (flymake-diagnostics))
           (lambda (a b) (< (aref a 0) (aref b 0)))))))

(defun flow-neighbours (step)
  "In the opened file, beside ruff through the multiplexer: Spark's fix of ruff's
diagnostic, a Spark edit that moves lines, ruff's own fix, each picked with M-x
eglot-code-actions; ruff's diagnostics after each (tests/editors/neighbours.py)."
  (let ((diagnostics (list :start (flow-ruff-diagnostics "on opening")))
        texts offered)
    (dolist (name '(:fix :shift :ruff))
      (let* ((action (plist-get step name))
             (title (plist-get action :title))
             (before (buffer-string)))
        (deactivate-mark)
        (if (plist-get action :to_line)
            (flow-select (list :line (1+ (plist-get action :line)) :to_line (1+ (plist-get action :to_line))))
          (flow-goto-line (1+ (plist-get action :line)))
          ;; the cursor on the diagnostic, as the user's is: eglot sends those under it
          (goto-char (flymake-diagnostic-beg (car (flymake-diagnostics (line-beginning-position) (line-end-position))))))
        (setq offered (plist-put offered name (vconcat (flow-action-titles))))
        (flow-type (kbd "M-x") "eglot-code-actions\r" title "\r")
        (flow-wait (format "%s to change the buffer" title) (lambda () (not (equal before (buffer-string)))))
        (deactivate-mark)
        (setq texts (plist-put texts name (buffer-substring-no-properties (point-min) (point-max))))
        (setq diagnostics (plist-put diagnostics name (flow-ruff-diagnostics (format "after %s" name))))))
    (flow-set "neighbours" (list :texts texts :diagnostics diagnostics :offered offered))))

(defun flow-complete (step)
  "Type STEP's :type at the end of the buffer, then completion at point through
eglot's capf, asked again as typing would until sparkls's item is there (or the
request fails)."
  (goto-char (point-max))
  (flow-type (plist-get step :type))
  (flow-idle)
  (let ((deadline (+ (float-time) (plist-get flow-env :timeout)))
        items error)
    (while (and (null items) (null error) (< (float-time) deadline))
      (condition-case err
          (let ((capf (eglot-completion-at-point)))
            (setq items (and capf (all-completions "" (nth 2 capf)))))
        (error (setq error (error-message-string err))))
      (unless items (accept-process-output nil 0.05)))
    (flow-set "complete" (list :items (vconcat items) :error error
                               :answers (vconcat (cl-loop for (method _params answer) in flow-requests
                                                          when (eq method :textDocument/completion)
                                                          collect answer))))))

(defun flow-step (name)
  "STEP NAME passed."
  (flow-set "steps" (vconcat (gethash "steps" flow-result) (list name))))

(let ((ok (condition-case err
              (progn (flow-main) t)
            (error (flow-set "error" (error-message-string err))
                   (flow-set "commands" (flow-commands))
                   (flow-set "messages" (vconcat (reverse flow-messages)))
                   nil))))
  (with-temp-file (plist-get flow-env :result)
    (insert (json-encode flow-result)))
  (kill-emacs (if ok 0 1)))

;;; eglot_flow.el ends here
